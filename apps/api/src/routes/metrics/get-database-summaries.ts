import { getDatabaseSummaries } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentDatabaseSummaries } from "../../metrics/present.js";
import { requestedConnection } from "../../metrics/request.js";

export const getDatabaseSummariesHandler = implement(getDatabaseSummaries, async (c) => {
  const query = c.req.valid("query");
  const summaries = await c.get("services").metrics.databaseSummaries(c.get("access"), {
    connectionId: requestedConnection(query),
    range: query.time_range,
  });
  return c.json(presentDatabaseSummaries(summaries), 200);
});
