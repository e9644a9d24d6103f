import { queryMetrics } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const queryMetricsHandler = implement(queryMetrics, async (c) => {
  return c.json(await c.get("services").metrics.series(c.get("access"), c.req.valid("query")), 200);
});
