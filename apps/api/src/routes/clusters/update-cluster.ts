import { updateCluster } from "@dbmon/contract";
import { parseClusterRef } from "../../clusters/refs.js";
import { presentCluster } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const updateClusterHandler = implement(updateCluster, async (c) => {
  const ref = parseClusterRef(c.req.valid("param").id);
  const cluster = await c.get("services").clusters.updateCluster(ref, c.req.valid("json"));
  return c.json(presentCluster(cluster), 200);
});
