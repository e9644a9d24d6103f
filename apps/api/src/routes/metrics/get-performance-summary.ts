import { getPerformanceSummary } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getPerformanceSummaryHandler = implement(getPerformanceSummary, async (c) => {
  return c.json(
    await c.get("services").metrics.performanceSummary(c.get("access"), c.req.valid("query")),
    200,
  );
});
