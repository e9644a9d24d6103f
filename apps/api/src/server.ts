import type { AddressInfo } from "node:net";
import { startAlerter } from "@dbmon/alerter";
import { createOutboundHostPolicy, type Datastore, loadSecretKey, openDatastore } from "@dbmon/datastore";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
import { type CreatedAdmin, ensureFirstAdmin } from "./auth/bootstrap.js";
import type { ConnectionCatalog } from "./auth/privileges.js";
import { AuthService } from "./auth/service.js";
import type { Config } from "./config.js";
import type { Logger } from "./logger.js";
import { systemClock } from "./services.js";

export interface RunningService {
  /** Base URL the API listens on. */
  url: string;
  datastore: Datastore;
  /** Stops accepting, lets in-flight requests finish, then closes the datastore. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Told once when the first superuser was created on an empty datastore. */
  onAdminCreated?: (admin: CreatedAdmin) => void;
  connections?: ConnectionCatalog;
}

/**
 * Opens the datastore (migrating it), registers the MCP items, creates the first superuser when
 * there are no users, and serves the API until `close()`.
 */
export async function startService(
  config: Config,
  logger: Logger,
  options: StartOptions = {},
): Promise<RunningService> {
  const datastore = await openDatastore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    embeddedPort: config.embeddedPort,
    logger,
  });
  const auth = new AuthService({ datastore, clock: systemClock, config, connections: options.connections });
  try {
    await auth.registerMcpItems();
    const admin = await ensureFirstAdmin(auth, config.adminUsername, config.adminPassword);
    if (admin) {
      logger.info({ username: admin.username }, "created the first superuser");
      options.onAdminCreated?.(admin);
    }
  } catch (error) {
    await datastore.close();
    throw error;
  }
  // AI features arrive with the LLM configuration; until a provider is configured they are off.
  let secretKey: Awaited<ReturnType<typeof loadSecretKey>>;
  try {
    secretKey = await loadSecretKey({ secret: config.secret, dataDir: config.dataDir });
  } catch (error) {
    await datastore.close();
    throw error;
  }
  const outboundHosts = createOutboundHostPolicy({ allowed: config.notificationAllowedHosts });
  const app = createApp({
    config,
    datastore,
    logger,
    clock: systemClock,
    auth,
    ai: { enabled: false },
    secretKey,
    outboundHosts,
  });

  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const started = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () =>
        resolve(started),
      );
      started.once("error", reject);
    });
  } catch (error) {
    await datastore.close();
    throw error;
  }
  // The alerter runs beside the API unless DBMON_ALERTER=false (then run `dbmon alerter` elsewhere).
  const alerter = config.alerter
    ? startAlerter({ datastore, logger, secretKey, hosts: outboundHosts, clock: systemClock })
    : undefined;
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  logger.info(
    { address: url, datastore: datastore.embedded ? "embedded" : "external" },
    "dbmon API listening",
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    datastore,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => {
            logger.warn("shutdown timeout: closing remaining connections");
            if ("closeAllConnections" in server) {
              server.closeAllConnections();
            }
          }, config.shutdownTimeoutMs);
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          // Idle keep-alive connections would hold close() open; busy ones finish their request.
          if ("closeIdleConnections" in server) {
            server.closeIdleConnections();
          }
        });
        await alerter?.stop();
        await datastore.close();
        logger.info("dbmon stopped");
      })();
      return closing;
    },
  };
}
