import { health } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { version } from "../../version.js";

const PING_TIMEOUT_MS = 2_000;

export const healthHandler = implement(health, async (c) => {
  const { datastore, logger } = c.get("services");
  try {
    await withTimeout(datastore.ping(), PING_TIMEOUT_MS);
    return c.json({ status: "ok" as const, server: "dbmon" as const, version }, 200);
  } catch (error) {
    logger.warn({ err: error }, "health check: datastore unreachable");
    return c.json(
      {
        status: "unavailable" as const,
        server: "dbmon" as const,
        version,
        error: "The datastore is unreachable",
      },
      503,
    );
  }
});

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
