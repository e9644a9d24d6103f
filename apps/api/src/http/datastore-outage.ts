import type { Datastore } from "@dbmon/datastore";
import type { Logger } from "../logger.js";

/**
 * What the driver or Node reports when the datastore cannot be reached or went away: refused or
 * reset connections, a pool ended, a connect that timed out, and the server's own admin_shutdown,
 * crash_shutdown and cannot_connect_now (a restart or a failover).
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
const POOL_ENDED_CODES = new Set(["CONNECTION_ENDED", "CONNECTION_DESTROYED"]);

/** Seconds a client is asked to wait before trying again while the datastore is down. */
export const DATASTORE_RETRY_AFTER_SECONDS = 5;

function codeOf(error: unknown, port?: number): string | undefined {
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

/** Whether an error says the datastore is down rather than that a request went wrong. */
export function isDatastoreUnavailable(error: unknown, datastore: Datastore): boolean {
  return codeOf(error, portOf(datastore)) !== undefined;
}

function portOf(datastore: Datastore): number {
  return Number(new URL(datastore.url).port || 5432);
}

const outages = new WeakMap<Datastore, true>();

/**
 * Notes that a request found the datastore down. The first request of an outage logs it; until a
 * ping answers again (every Retry-After seconds, in the background) later ones do not, and then
 * the recovery is logged once too. The driver reconnects by itself on the next query.
 */
export function reportDatastoreOutage(datastore: Datastore, logger: Logger, error: unknown): void {
  if (outages.has(datastore)) {
    return;
  }
  outages.set(datastore, true);
  logger.error({ code: codeOf(error) }, "datastore unavailable: requests are answered 503 until it is back");
  const probe = () => {
    const timer = setTimeout(() => {
      datastore.ping().then(
        () => {
          outages.delete(datastore);
          logger.info("datastore reachable again");
        },
        (pingError: unknown) => {
          const code = codeOf(pingError);
          if (code === undefined || !POOL_ENDED_CODES.has(code)) {
            probe();
          }
        },
      );
    }, DATASTORE_RETRY_AFTER_SECONDS * 1000);
    // The watch never keeps a stopping process alive.
    timer.unref();
  };
  probe();
}
