import { getProbeConfig } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentProbeConfig } from "../../probes/present.js";

export const getProbeConfigHandler = implement(getProbeConfig, async (c) => {
  const config = await c.get("services").probes.get(c.req.valid("param").id);
  return c.json(presentProbeConfig(config), 200);
});
