import { updateCluster } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { overrideAutoCluster, updateStoredCluster } from "../../clusters/manage.js";
import { parseClusterRef } from "../../clusters/refs.js";
import { presentCluster } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerUpdateCluster(app: App): void {
  app.openapi(guarded(updateCluster, { permission: "manage_connections" }), async (c) => {
    const ref = parseClusterRef(c.req.valid("param").id);
    const body = c.req.valid("json");
    const { db } = c.get("services").datastore;
    const cluster =
      ref.kind === "stored"
        ? await updateStoredCluster(db, ref.id, body)
        : await overrideAutoCluster(db, ref, body);
    return c.json(presentCluster(cluster), 200);
  });
}
