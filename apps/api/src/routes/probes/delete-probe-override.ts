import { deleteProbeOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteProbeOverrideHandler = implement(deleteProbeOverride, async (c) => {
  const { scope, scopeId, probeName } = c.req.valid("param");
  await c.get("services").probes.deleteOverride(c.get("access"), scope, scopeId, probeName);
  return c.json({ status: "ok" as const }, 200);
});
