import { removeServerFromCluster } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { and, eq, or } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerRemoveServerFromCluster(app: App): void {
  app.openapi(guarded(removeServerFromCluster, { permission: "manage_connections" }), async (c) => {
    const { id, connectionId } = c.req.valid("param");
    const { db } = c.get("services").datastore;
    const removed = await db.transaction(async (tx) => {
      const rows = await tx
        .update(schema.connections)
        .set({ clusterId: null, role: null, membershipSource: "auto" })
        .where(and(eq(schema.connections.id, connectionId), eq(schema.connections.clusterId, id)))
        .returning({ id: schema.connections.id });
      if (rows.length > 0) {
        await tx
          .delete(schema.clusterNodeRelationships)
          .where(
            or(
              eq(schema.clusterNodeRelationships.sourceConnectionId, connectionId),
              eq(schema.clusterNodeRelationships.targetConnectionId, connectionId),
            ),
          );
      }
      return rows.length > 0;
    });
    if (!removed) {
      throw new ApiError(404, "Connection not found in this cluster");
    }
    return c.body(null, 204);
  });
}
