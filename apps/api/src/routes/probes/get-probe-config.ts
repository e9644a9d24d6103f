import { getProbeConfig } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getProbeConfigHandler = implement(getProbeConfig, async (c) => {
  return c.json(await c.get("services").probes.get(c.req.valid("param").id), 200);
});
