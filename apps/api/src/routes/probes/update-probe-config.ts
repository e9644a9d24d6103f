import { updateProbeConfig } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateProbeConfigHandler = implement(updateProbeConfig, async (c) => {
  const { id } = c.req.valid("param");
  return c.json(await c.get("services").probes.update(id, c.req.valid("json")), 200);
});
