import { listGroupClusters } from "@dbmon/contract";
import { presentCluster } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const listGroupClustersHandler = implement(listGroupClusters, async (c) => {
  const clusters = await c.get("services").clusters.groupClusters(c.get("access"), c.req.valid("param").id);
  return c.json(clusters.map(presentCluster), 200);
});
