import { type Datastore, POOL_ENDED_CODES, unavailableCode } from "@dbmon/datastore";
import type { Logger } from "../logger.js";

/** Seconds a client is asked to wait before trying again while the datastore is down. */
export const DATASTORE_RETRY_AFTER_SECONDS = 5;

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
  logger.error(
    { code: unavailableCode(error) },
    "datastore unavailable: requests are answered 503 until it is back",
  );
  const probe = () => {
    const timer = setTimeout(() => {
      datastore.ping().then(
        () => {
          outages.delete(datastore);
          logger.info("datastore reachable again");
        },
        (pingError: unknown) => {
          const code = unavailableCode(pingError);
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
