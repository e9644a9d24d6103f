import { createCluster } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { createManualCluster } from "../../clusters/manage.js";
import { presentCluster } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerCreateCluster(app: App): void {
  app.openapi(guarded(createCluster, { permission: "manage_connections" }), async (c) => {
    const body = c.req.valid("json");
    const caller = await c.get("access").requireCaller();
    const cluster = await createManualCluster(c.get("services").datastore.db, body, caller.username);
    return c.json(presentCluster(cluster), 201);
  });
}
