import { getConnectionCluster } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getConnectionClusterHandler = implement(getConnectionCluster, async (c) => {
  const membership = await c
    .get("services")
    .clusters.connectionCluster(c.get("access"), c.req.valid("param").id);
  return c.json(
    {
      info: membership.info,
      clusters: membership.clusters.map((row) => ({
        id: row.id,
        name: row.name,
        replication_type: row.replicationType,
        auto_cluster_key: row.autoClusterKey,
      })),
      relationships: membership.relationships,
    },
    200,
  );
});
