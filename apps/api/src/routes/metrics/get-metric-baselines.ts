import { getMetricBaselines } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getMetricBaselinesHandler = implement(getMetricBaselines, async (c) => {
  return c.json(await c.get("services").metrics.baselines(c.get("access"), c.req.valid("query")), 200);
});
