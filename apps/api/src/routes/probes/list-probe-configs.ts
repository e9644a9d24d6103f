import { listProbeConfigs } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listProbeConfigsHandler = implement(listProbeConfigs, async (c) => {
  const { connection_id: connectionId } = c.req.valid("query");
  return c.json(await c.get("services").probes.list(c.get("access"), connectionId), 200);
});
