import { getPerformanceSummary } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentPerformanceSummary } from "../../metrics/present.js";
import { requestedConnections } from "../../metrics/request.js";

export const getPerformanceSummaryHandler = implement(getPerformanceSummary, async (c) => {
  const query = c.req.valid("query");
  const summary = await c.get("services").metrics.performanceSummary(c.get("access"), {
    connectionIds: requestedConnections(query),
    range: query.time_range,
  });
  return c.json(presentPerformanceSummary(summary), 200);
});
