import { listProbeConfigs } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentProbeConfig } from "../../probes/present.js";

export const listProbeConfigsHandler = implement(listProbeConfigs, async (c) => {
  const { connection_id: connectionId } = c.req.valid("query");
  const configs = await c.get("services").probes.list(c.get("access"), connectionId);
  return c.json(configs.map(presentProbeConfig), 200);
});
