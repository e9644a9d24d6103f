import type { Datastore } from "./datastore.js";

/**
 * What the driver or Node reports when the datastore cannot be reached or went away: refused or
 * reset connections, a pool ended, a connect that timed out, and the server's own admin_shutdown,
 * crash_shutdown and cannot_connect_now (a restart or a failover). The API answers 503 on these,
 * the collector buffers its runs and the alerter keeps what it has sent (one rule for all three).
 */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "57P01",
  "57P02",
  "57P03",
]);

/** The pool itself was ended (the process is stopping): nothing comes back. */
export const POOL_ENDED_CODES: ReadonlySet<string> = new Set(["CONNECTION_ENDED", "CONNECTION_DESTROYED"]);

/**
 * The code that says the datastore (listening on `port`, when given) is unavailable, or undefined
 * when the error is of another kind or of another peer.
 */
export function unavailableCode(error: unknown, port?: number): string | undefined {
  let current: unknown = error;
  // Drizzle wraps the driver's error as `cause`.
  for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
    const { code, port: peer } = current as { code?: unknown; port?: unknown };
    // A socket error names its peer's port: another one is a monitored server or a provider.
    const elsewhere = port !== undefined && typeof peer === "number" && peer !== port;
    if (typeof code === "string" && UNAVAILABLE_CODES.has(code) && !elsewhere) {
      return code;
    }
    current = current.cause;
  }
  return undefined;
}

/** Whether an error says the datastore is down rather than that a statement went wrong. */
export function isDatastoreUnavailable(error: unknown, datastore: Pick<Datastore, "url">): boolean {
  return unavailableCode(error, Number(new URL(datastore.url).port || 5432)) !== undefined;
}
