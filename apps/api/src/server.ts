import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type RunningAlerter, startAlerter } from "@dbmon/alerter";
import { type RunningCollector, startCollector } from "@dbmon/collector";
import { type Datastore, openDatastore } from "@dbmon/datastore";
import { serve } from "@hono/node-server";
import { createApp } from "./app.js";
import { type CreatedAdmin, ensureFirstAdmin } from "./auth/bootstrap.js";
import { systemClock } from "./clock.js";
import type { Config } from "./config.js";
import { registerSelfConnection } from "./connections/self-monitoring.js";
import { createServices } from "./create-services.js";
import { API_REFERENCE_PATH } from "./http/api-reference.js";
import { answerClientErrorsAsJson } from "./http/client-errors.js";
import type { Logger } from "./logger.js";
import type { Services } from "./services.js";

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
}

/**
 * Opens the datastore (migrating it), creates the first superuser when there are no users, registers
 * the embedded datastore as the connection `local`, starts the collector, and serves the API until
 * `close()`.
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
  let services: Services;
  let collector: RunningCollector | undefined;
  let alerter: RunningAlerter | undefined;
  try {
    services = await createServices({ config, datastore, logger, clock: systemClock });
    const admin = await ensureFirstAdmin(services.auth, config.adminUsername, config.adminPassword);
    if (admin) {
      logger.info({ username: admin.username }, "created the first superuser");
      options.onAdminCreated?.(admin);
    }
    // Indexed now rather than at the first search; a failure leaves only search_knowledgebase without it.
    await services.knowledgeBase.ensureIndexed().catch((error: unknown) => {
      logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        "knowledge base not indexed",
      );
    });
    if (datastore.embedded && config.monitorSelf) {
      const id = await registerSelfConnection(services, datastore.embedded);
      logger.info({ connectionId: id }, "monitoring the embedded datastore as connection 'local'");
    }
    if (config.runCollector) {
      collector = await startCollector({
        datastore,
        logger,
        secretKey: services.secretKey,
        leaseSeconds: config.collectorLeaseSeconds,
        maxResultBytes: config.collectorMaxResultBytes,
        outageBufferBytes: config.collectorOutageBufferBytes,
        activityQueryChars: config.collectorActivity.queryChars,
        activityRawRetentionMinutes: config.collectorActivity.rawRetentionMinutes,
        sslDirectory: config.sslDirectory,
        hostPolicy: services.hostPolicy,
      });
    }
    // Unless DBMON_ALERTER=false (then `dbmon alerter` runs elsewhere).
    if (config.alerter) {
      alerter = startAlerter({
        datastore,
        logger,
        secretKey: services.secretKey,
        hosts: services.outboundHosts,
        clock: systemClock,
        evaluationSeconds: config.evaluationSeconds,
      });
    }
  } catch (error) {
    await alerter?.stop();
    await collector?.stop();
    await datastore.close();
    throw error;
  }
  services.overview.start();
  const app = createApp(services);

  let server: ReturnType<typeof serve>;
  try {
    server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const started = serve({ fetch: app.fetch, hostname: config.host, port: config.port }, () =>
        resolve(started),
      );
      started.once("error", (error: NodeJS.ErrnoException) => reject(listenError(error, config)));
    });
    answerClientErrorsAsJson(server as Server);
  } catch (error) {
    await services.overview.stop();
    await alerter?.stop();
    await collector?.stop();
    await datastore.close();
    throw error;
  }
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  // The last line of start-up: where to go next.
  logger.info(
    {
      address: url,
      reference: `${url}${API_REFERENCE_PATH}`,
      datastore: datastore.embedded ? "embedded" : "external",
    },
    "dbmon API listening",
  );

  let closing: Promise<void> | undefined;
  return {
    url,
    datastore,
    close() {
      closing ??= (async () => {
        // Open overview streams would otherwise hold the server's close until the timeout.
        await services.overview.stop();
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
        await services.sql.close();
        await alerter?.stop();
        await collector?.stop();
        await datastore.close();
        logger.info("dbmon stopped");
      })();
      return closing;
    },
  };
}

/** A port that cannot be had is the operator's to fix: one sentence naming the setting, no stack. */
function listenError(error: NodeJS.ErrnoException, config: Config): Error {
  const where = `${config.host}:${config.port}`;
  if (error.code === "EADDRINUSE") {
    return new Error(`${where} is already in use: stop what listens there or set DBMON_PORT to another port`);
  }
  if (error.code === "EACCES") {
    return new Error(`Not allowed to listen on ${where}: set DBMON_PORT to a port above 1023`);
  }
  if (error.code === "EADDRNOTAVAIL") {
    return new Error(`${config.host} is not an address of this machine: set DBMON_HOST to one`);
  }
  return error;
}
