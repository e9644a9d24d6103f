import { type Datastore, schema } from "@dbmon/datastore";
import { eq } from "drizzle-orm";
import type { ConnectionCatalog } from "../auth/privileges.js";

const { connections } = schema;
const accessColumns = {
  id: connections.id,
  ownerUsername: connections.ownerUsername,
  isShared: connections.isShared,
};

/** The monitored connections as the authorization layer sees them, read from the datastore. */
export function datastoreConnectionCatalog(datastore: Datastore): ConnectionCatalog {
  return {
    async get(id) {
      const [row] = await datastore.db.select(accessColumns).from(connections).where(eq(connections.id, id));
      return row;
    },
    list: () => datastore.db.select(accessColumns).from(connections),
  };
}
