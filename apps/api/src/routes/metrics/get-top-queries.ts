import { getTopQueries } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getTopQueriesHandler = implement(getTopQueries, async (c) => {
  return c.json(await c.get("services").metrics.topQueries(c.get("access"), c.req.valid("query")), 200);
});
