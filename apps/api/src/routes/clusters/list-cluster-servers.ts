import { listClusterServers } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listClusterServersHandler = implement(listClusterServers, async (c) => {
  const { id } = c.req.valid("param");
  const servers = await c.get("services").clusters.servers(c.get("access"), id);
  return c.json(
    servers.map((server) => ({
      id: server.id,
      name: server.name,
      host: server.host,
      port: server.port,
      status: server.status,
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
