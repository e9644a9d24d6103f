import { deleteClusterGroup } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { eq, inArray } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import { findGroup, notFound, requireGroupWrite } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteClusterGroup(app: App): void {
  app.openapi(guarded(deleteClusterGroup, {}), async (c) => {
    const { id } = c.req.valid("param");
    const { db } = c.get("services").datastore;
    const group = await findGroup(db, id);
    if (!group) {
      throw new ApiError(404, notFound.group);
    }
    await requireGroupWrite(c.get("access"), group);
    if (group.isDefault) {
      throw new ApiError(403, "The default group cannot be deleted");
    }
    await db.transaction(async (tx) => {
      // The group's clusters go with it (cascade); their servers return to auto-detection.
      const clusterIds = tx
        .select({ id: schema.clusters.id })
        .from(schema.clusters)
        .where(eq(schema.clusters.groupId, id));
      await tx
        .update(schema.connections)
        .set({ clusterId: null, role: null, membershipSource: "auto" })
        .where(inArray(schema.connections.clusterId, clusterIds));
      await tx.delete(schema.clusterGroups).where(eq(schema.clusterGroups.id, id));
    });
    return c.body(null, 204);
  });
}
