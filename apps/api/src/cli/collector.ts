import { startCollector } from "@dbmon/collector";
import { loadSecretKey, openDatastore } from "@dbmon/datastore";
import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { closeOnSignals } from "./lifecycle.js";

export function registerCollectorCommand(program: Command): void {
  program
    .command("collector")
    .description("run only the collector; several collectors (and `serve` processes) may share one datastore")
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const datastore = await openDatastore({
        databaseUrl: config.databaseUrl,
        dataDir: config.dataDir,
        embeddedPort: config.embeddedPort,
        logger,
      });
      const secretKey = await loadSecretKey({ secret: config.secret, dataDir: config.dataDir });
      const collector = await startCollector({ datastore, logger, secretKey });
      logger.info({ instanceId: collector.instanceId }, "dbmon collector running");
      closeOnSignals(logger, async () => {
        await collector.stop();
        await datastore.close();
        logger.info("dbmon collector stopped");
      });
    });
}
