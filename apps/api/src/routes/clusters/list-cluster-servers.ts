import { listClusterServers } from "@dbmon/contract";
import { schema } from "@dbmon/datastore";
import { eq } from "drizzle-orm";
import { guarded } from "../../auth/guard.js";
import { readServers, serverStatus } from "../../clusters/status.js";
import { clusterScope, visibleCluster } from "../../clusters/store.js";
import type { App } from "../../http/app-type.js";

export function registerListClusterServers(app: App): void {
  app.openapi(guarded(listClusterServers, {}), async (c) => {
    const { id } = c.req.valid("param");
    const { db, sql } = c.get("services").datastore;
    const scope = await clusterScope(c.get("access"));
    await visibleCluster(db, scope, id);
    const memberIds = await db
      .select({ id: schema.connections.id })
      .from(schema.connections)
      .where(eq(schema.connections.clusterId, id));
    const ids = memberIds
      .map((row) => row.id)
      .filter((member) => scope.everything || scope.visible.has(member));
    const servers = ids.length === 0 ? [] : await readServers(sql, ids);
    return c.json(
      servers.map((server) => ({
        id: server.id,
        name: server.name,
        host: server.host,
        port: server.port,
        status: serverStatus(server),
        connection_error: server.connection_error,
        role: server.role,
        membership_source: server.membership_source,
        database_name: server.database_name,
        is_monitored: server.is_monitored,
        cluster_id: id,
      })),
      200,
    );
  });
}
