import { listClusterGroups } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { asc, desc } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import { clusterScope, groupVisible, presentGroup } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerListClusterGroups(app: App): void {
  app.openapi(guarded(listClusterGroups, {}), async (c) => {
    const { db } = c.get("services").datastore;
    const scope = await clusterScope(c.get("access"));
    const groups = await db
      .select()
      .from(schema.clusterGroups)
      .orderBy(desc(schema.clusterGroups.isDefault), asc(schema.clusterGroups.name));
    const shown = [];
    for (const group of groups) {
      if (await groupVisible(db, scope, group)) {
        shown.push(presentGroup(group));
      }
    }
    return c.json(shown, 200);
  });
}
