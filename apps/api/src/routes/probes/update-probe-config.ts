import { updateProbeConfig } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentProbeConfig, settingsOf } from "../../probes/present.js";

export const updateProbeConfigHandler = implement(updateProbeConfig, async (c) => {
  const { id } = c.req.valid("param");
  const config = await c.get("services").probes.update(id, settingsOf(c.req.valid("json")));
  return c.json(presentProbeConfig(config), 200);
});
