import { queryConnection } from "@dbmon/contract";
import { runAdHocQuery } from "../../connections/ad-hoc-query.js";
import { implement } from "../../http/operations.js";

export const queryConnectionHandler = implement(queryConnection, async (c) => {
  const { id } = c.req.valid("param");
  const answer = await runAdHocQuery(
    c.get("services"),
    c.get("access"),
    id,
    c.req.valid("json"),
    c.req.raw.signal,
  );
  return c.json(answer, 200);
});
