import { listProbeOverrides } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listProbeOverridesHandler = implement(listProbeOverrides, async (c) => {
  const { scope, scopeId } = c.req.valid("param");
  return c.json(await c.get("services").probes.listOverrides(c.get("access"), scope, scopeId), 200);
});
