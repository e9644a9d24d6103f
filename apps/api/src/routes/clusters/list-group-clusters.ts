import { listGroupClusters } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { and, asc, eq, isNull, or } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import { clusterScope, clusterVisible, presentCluster, visibleGroup } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerListGroupClusters(app: App): void {
  app.openapi(guarded(listGroupClusters, {}), async (c) => {
    const { id } = c.req.valid("param");
    const { db } = c.get("services").datastore;
    const scope = await clusterScope(c.get("access"));
    const group = await visibleGroup(db, scope, id);
    const inGroup = group.isDefault
      ? or(eq(schema.clusters.groupId, id), isNull(schema.clusters.groupId))
      : eq(schema.clusters.groupId, id);
    const rows = await db
      .select()
      .from(schema.clusters)
      .where(and(inGroup, eq(schema.clusters.dismissed, false)))
      .orderBy(asc(schema.clusters.name), asc(schema.clusters.id));
    const shown = [];
    for (const row of rows) {
      if (await clusterVisible(db, scope, row)) {
        shown.push(presentCluster(row));
      }
    }
    return c.json(shown, 200);
  });
}
