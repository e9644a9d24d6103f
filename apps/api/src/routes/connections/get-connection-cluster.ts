import { getConnectionCluster } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { connectionClusterInfo } from "../../clusters/membership.js";
import {
  clusterScope,
  listRelationships,
  visibleClusters,
  visibleRelationships,
} from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerGetConnectionCluster(app: App): void {
  app.openapi(guarded(getConnectionCluster, { connection: { param: "id", level: "read" } }), async (c) => {
    const { id } = c.req.valid("param");
    const { db, sql } = c.get("services").datastore;
    const info = await connectionClusterInfo(sql, id);
    const scope = await clusterScope(c.get("access"));
    return c.json(
      {
        info,
        clusters: (await visibleClusters(db, scope)).map((row) => ({
          id: row.id,
          name: row.name,
          replication_type: row.replicationType,
          auto_cluster_key: row.autoClusterKey,
        })),
        relationships: visibleRelationships(scope, await listRelationships(sql, { connectionId: id })),
      },
      200,
    );
  });
}
