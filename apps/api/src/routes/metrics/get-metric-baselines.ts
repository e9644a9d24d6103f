import { getMetricBaselines } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentBaseline } from "../../metrics/present.js";

export const getMetricBaselinesHandler = implement(getMetricBaselines, async (c) => {
  const query = c.req.valid("query");
  const baselines = await c.get("services").metrics.baselines(c.get("access"), {
    connectionId: query.connection_id,
    probeName: query.probe_name,
    metrics: query.metrics,
  });
  return c.json(baselines.map(presentBaseline), 200);
});
