import { type Datastore, readServerInfo } from "@dbmon/datastore";
import { ShortLivedCache } from "../short-lived-cache.js";
import { presentServerInfo, type ServerInfoDocument } from "./present.js";

/**
 * How long a server-information document is reused. Probes collect at most once a second (most
 * every minute or more), so a document this old is as current as the data behind it, while a
 * burst of dashboard requests costs one read of the datastore per connection per second.
 */
export const SERVER_INFO_REUSE_MS = 1_000;

/** Server-information documents of the monitored connections, read from collected data. */
export class ServerInfoDocuments {
  private readonly cache = new ShortLivedCache<number, ServerInfoDocument | null>(SERVER_INFO_REUSE_MS);

  constructor(private readonly datastore: Datastore) {}

  /** The document of a connection, or null when the connection does not exist. */
  read(connectionId: number): Promise<ServerInfoDocument | null> {
    return this.cache.get(
      connectionId,
      async () => {
        const info = await readServerInfo(this.datastore, connectionId);
        return info && presentServerInfo(info);
      },
      (info) => info !== null,
    );
  }
}
