import { type Datastore, schema } from "@dbmon/datastore";
import type { AccessCache } from "../auth/access-cache.js";
import type { ConnectionCatalog, ConnectionInfo } from "../auth/privileges.js";

const { connections } = schema;

/**
 * The monitored connections as the authorization layer sees them, read from the datastore and
 * kept in the access cache (the whole catalog at once: a few dozen bytes per connection).
 */
export function datastoreConnectionCatalog(datastore: Datastore, cache: AccessCache): ConnectionCatalog {
  const all = () =>
    cache.connections.get("all", async () => {
      const rows = await datastore.db
        .select({
          id: connections.id,
          ownerUsername: connections.ownerUsername,
          isShared: connections.isShared,
        })
        .from(connections)
        .orderBy(connections.id);
      return new Map(rows.map((row): [number, ConnectionInfo] => [row.id, row]));
    });
  return {
    get: async (id) => (await all()).get(id),
    list: async () => [...(await all()).values()],
  };
}
