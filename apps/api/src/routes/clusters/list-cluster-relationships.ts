import { listClusterRelationships } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import {
  clusterScope,
  listRelationships,
  visibleCluster,
  visibleRelationships,
} from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerListClusterRelationships(app: App): void {
  app.openapi(guarded(listClusterRelationships, {}), async (c) => {
    const { id } = c.req.valid("param");
    const { db, sql } = c.get("services").datastore;
    const scope = await clusterScope(c.get("access"));
    await visibleCluster(db, scope, id);
    return c.json(visibleRelationships(scope, await listRelationships(sql, { clusterId: id })), 200);
  });
}
