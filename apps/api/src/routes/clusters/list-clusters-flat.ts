import { listClustersFlat } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { clusterScope, presentCluster, visibleClusters } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerListClustersFlat(app: App): void {
  app.openapi(guarded(listClustersFlat, {}), async (c) => {
    const scope = await clusterScope(c.get("access"));
    const clusters = await visibleClusters(c.get("services").datastore.db, scope);
    return c.json(clusters.map(presentCluster), 200);
  });
}
