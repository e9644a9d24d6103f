import { removeServerFromCluster } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const removeServerFromClusterHandler = implement(removeServerFromCluster, async (c) => {
  const { id, connectionId } = c.req.valid("param");
  await c.get("services").clusters.removeServer(id, connectionId);
  return c.body(null, 204);
});
