import { deleteCluster } from "@dbmon/contract";
import { parseClusterRef } from "../../clusters/refs.js";
import { implement } from "../../http/operations.js";

export const deleteClusterHandler = implement(deleteCluster, async (c) => {
  await c.get("services").clusters.deleteCluster(parseClusterRef(c.req.valid("param").id));
  return c.body(null, 204);
});
