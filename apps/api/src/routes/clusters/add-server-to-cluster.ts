import { addServerToCluster } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const addServerToClusterHandler = implement(addServerToCluster, async (c) => {
  const { id } = c.req.valid("param");
  const { connection_id: connectionId, role } = c.req.valid("json");
  const placed = await c.get("services").clusters.addServer(id, connectionId, role);
  return c.json({ cluster_id: id, connection_id: connectionId, role: placed.role }, 200);
});
