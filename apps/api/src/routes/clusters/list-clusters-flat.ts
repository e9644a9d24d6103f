import { listClustersFlat } from "@dbmon/contract";
import { presentCluster } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const listClustersFlatHandler = implement(listClustersFlat, async (c) => {
  const clusters = await c.get("services").clusters.listClusters(c.get("access"));
  return c.json(clusters.map(presentCluster), 200);
});
