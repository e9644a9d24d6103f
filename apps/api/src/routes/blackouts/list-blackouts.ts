import { BLACKOUT_PAGING, listBlackouts } from "@dbmon/contract";
import { presentBlackout, scopeFilterOf } from "../../alerting/blackouts.js";
import { implement } from "../../http/operations.js";
import { pageOf } from "../../paging.js";

export const listBlackoutsHandler = implement(listBlackouts, async (c) => {
  const query = c.req.valid("query");
  const { blackouts, total } = await c
    .get("services")
    .blackouts.find(
      c.get("access"),
      { ...scopeFilterOf(query), active: query.active },
      pageOf(query.limit, query.offset, BLACKOUT_PAGING),
    );
  return c.json({ blackouts: blackouts.map(presentBlackout), total_count: total }, 200);
});
