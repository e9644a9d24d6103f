import { getCluster } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { parseClusterRef } from "../../clusters/refs.js";
import { clusterScope, presentCluster, visibleCluster } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetCluster(app: App): void {
  app.openapi(guarded(getCluster, {}), async (c) => {
    const ref = parseClusterRef(c.req.valid("param").id);
    if (ref.kind !== "stored") {
      // Auto-detected ids only name something to rename, move or dismiss.
      throw new ApiError(405, "Method not allowed", { Allow: "PUT, DELETE" });
    }
    const scope = await clusterScope(c.get("access"));
    return c.json(presentCluster(await visibleCluster(c.get("services").datastore.db, scope, ref.id)), 200);
  });
}
