import { listProbeOverrides } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentProbeOverride } from "../../probes/present.js";

export const listProbeOverridesHandler = implement(listProbeOverrides, async (c) => {
  const { scope, scopeId } = c.req.valid("param");
  const overrides = await c.get("services").probes.listOverrides(c.get("access"), scope, scopeId);
  return c.json(overrides.map(presentProbeOverride), 200);
});
