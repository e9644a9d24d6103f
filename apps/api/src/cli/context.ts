import { openDatastore } from "@dbmon/datastore";
import { AccessCache } from "../auth/access-cache.js";
import { AuthService } from "../auth/service.js";
import { systemClock } from "../clock.js";
import { loadConfig } from "../config.js";
import { createCommandLogger } from "../logger.js";

/** A refusal meant for the operator: printed without a stack, exit status 1. */
export class CommandError extends Error {
  override name = "CommandError";
}

/** Runs a command against the configured datastore (migrated, MCP items registered), then closes it. */
export async function withAuth<T>(run: (auth: AuthService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const logger = createCommandLogger(config.logLevel, config.logFormat);
  const datastore = await openDatastore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedPort: config.embeddedPort,
    maxConnections: 2,
    logger,
  });
  try {
    // One command, no requests to serve: nothing needs to listen for other processes' changes.
    const auth = new AuthService({ datastore, clock: systemClock, config, cache: new AccessCache() });
    await auth.registerMcpItems();
    return await run(auth);
  } finally {
    await datastore.close();
  }
}

/** Prints data as JSON (`--json`) or as the given human text. */
export function print(json: boolean | undefined, data: unknown, text: string): void {
  console.log(json ? JSON.stringify(data) : text);
}
