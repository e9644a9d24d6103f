import { getClusterGroup } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { clusterScope, presentGroup, visibleGroup } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerGetClusterGroup(app: App): void {
  app.openapi(guarded(getClusterGroup, {}), async (c) => {
    const { id } = c.req.valid("param");
    const scope = await clusterScope(c.get("access"));
    return c.json(presentGroup(await visibleGroup(c.get("services").datastore.db, scope, id)), 200);
  });
}
