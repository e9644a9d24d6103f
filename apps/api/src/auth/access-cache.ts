import type { Datastore } from "@dbmon/datastore";
import { ShortLivedCache } from "../short-lived-cache.js";
import type { ResolvedCredential } from "./credentials.js";
import type { ConnectionInfo, EffectivePrivileges } from "./privileges.js";

/** The channel the datastore's triggers notify on any change to users, groups, grants, credentials or connections. */
export const ACCESS_CHANGES_CHANNEL = "dbmon_access";

/**
 * How long an access fact may be served without a change notification. Changes made through this
 * process clear the cache before their response, other processes' changes arrive by NOTIFY within
 * milliseconds; this bound only matters if a notification is lost with the datastore connection.
 */
export const ACCESS_CACHE_TTL_MS = 10_000;

/**
 * Who each credential stands for, what each caller may do and what the catalog knows of
 * connections: what every authorized request needs, kept in memory so that a request costs no
 * datastore round trip for it. Everything is dropped at once on any change, since such changes
 * are rare and their effects reach across all three.
 */
export class AccessCache {
  readonly credentials = new ShortLivedCache<string, ResolvedCredential | undefined>(ACCESS_CACHE_TTL_MS);
  readonly privileges = new ShortLivedCache<string, EffectivePrivileges>(ACCESS_CACHE_TTL_MS);
  readonly connections = new ShortLivedCache<"all", ReadonlyMap<number, ConnectionInfo>>(ACCESS_CACHE_TTL_MS);

  clear(): void {
    this.credentials.clear();
    this.privileges.clear();
    this.connections.clear();
  }

  /**
   * Clears the cache on every change notification and whenever the listening connection is
   * (re)established, since notifications sent while it was down are lost.
   */
  async listen(datastore: Datastore): Promise<void> {
    await datastore.listen(
      ACCESS_CHANGES_CHANNEL,
      () => this.clear(),
      () => this.clear(),
    );
  }
}
