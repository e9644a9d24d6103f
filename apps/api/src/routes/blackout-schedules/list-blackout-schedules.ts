import { BLACKOUT_PAGING, listBlackoutSchedules } from "@dbmon/contract";
import { scopeFilterOf } from "../../alerting/blackouts.js";
import { presentSchedule } from "../../alerting/schedules.js";
import { implement } from "../../http/operations.js";
import { pageOf } from "../../paging.js";

export const listBlackoutSchedulesHandler = implement(listBlackoutSchedules, async (c) => {
  const query = c.req.valid("query");
  const { schedules, total } = await c
    .get("services")
    .blackoutSchedules.find(
      c.get("access"),
      { ...scopeFilterOf(query), enabled: query.enabled },
      pageOf(query.limit, query.offset, BLACKOUT_PAGING),
    );
  return c.json({ schedules: schedules.map(presentSchedule), total_count: total }, 200);
});
