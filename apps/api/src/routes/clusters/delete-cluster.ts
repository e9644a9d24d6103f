import { deleteCluster } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { deleteStoredCluster, dismissAutoCluster } from "../../clusters/manage.js";
import { parseClusterRef } from "../../clusters/refs.js";
import type { App } from "../../http/app-type.js";

export function registerDeleteCluster(app: App): void {
  app.openapi(guarded(deleteCluster, { permission: "manage_connections" }), async (c) => {
    const ref = parseClusterRef(c.req.valid("param").id);
    const { db } = c.get("services").datastore;
    if (ref.kind === "stored") {
      await deleteStoredCluster(db, ref.id);
    } else {
      await dismissAutoCluster(db, ref);
    }
    return c.body(null, 204);
  });
}
