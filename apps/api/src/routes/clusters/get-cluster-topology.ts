import { getClusterTopology } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { clusterScope } from "../../clusters/store.js";
import { buildTopology } from "../../clusters/topology.js";
import type { App } from "../../http/app-type.js";

export function registerGetClusterTopology(app: App): void {
  app.openapi(guarded(getClusterTopology, {}), async (c) => {
    const scope = await clusterScope(c.get("access"));
    return c.json(await buildTopology(c.get("services").datastore.sql, scope), 200);
  });
}
