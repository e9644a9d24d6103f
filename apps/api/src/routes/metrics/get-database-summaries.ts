import { getDatabaseSummaries } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getDatabaseSummariesHandler = implement(getDatabaseSummaries, async (c) => {
  return c.json(
    await c.get("services").metrics.databaseSummaries(c.get("access"), c.req.valid("query")),
    200,
  );
});
