import { addServerToCluster } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { and, eq, ne } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import { findCluster, notFound } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerAddServerToCluster(app: App): void {
  app.openapi(guarded(addServerToCluster, { permission: "manage_connections" }), async (c) => {
    const { id } = c.req.valid("param");
    const { connection_id: connectionId, role } = c.req.valid("json");
    const { db } = c.get("services").datastore;
    if (!(await findCluster(db, id))) {
      throw new ApiError(404, notFound.cluster);
    }
    const placed = await db.transaction(async (tx) => {
      const [row] = await tx
        .update(schema.connections)
        .set({ clusterId: id, role: role ?? null, membershipSource: "manual" })
        .where(eq(schema.connections.id, connectionId))
        .returning({ role: schema.connections.role });
      if (row) {
        // Its relationships in the cluster it leaves no longer apply.
        await tx
          .delete(schema.clusterNodeRelationships)
          .where(
            and(
              ne(schema.clusterNodeRelationships.clusterId, id),
              eq(schema.clusterNodeRelationships.sourceConnectionId, connectionId),
            ),
          );
        await tx
          .delete(schema.clusterNodeRelationships)
          .where(
            and(
              ne(schema.clusterNodeRelationships.clusterId, id),
              eq(schema.clusterNodeRelationships.targetConnectionId, connectionId),
            ),
          );
      }
      return row;
    });
    if (!placed) {
      throw new ApiError(404, notFound.connection);
    }
    return c.json({ cluster_id: id, connection_id: connectionId, role: placed.role }, 200);
  });
}
