import { startCollector } from "@dbmon/collector";
import { createHostPolicy } from "@dbmon/monitoring";
import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { createServiceLogger } from "../logger.js";
import { closeOnSignals } from "./lifecycle.js";
import { openWorker } from "./worker.js";

export function registerCollectorCommand(program: Command): void {
  program
    .command("collector")
    .description("run only the collector; several collectors (and `serve` processes) may share one datastore")
    .action(async () => {
      const config = loadConfig();
      const logger = createServiceLogger(config.logLevel, config.logFormat);
      const { datastore, secretKey } = await openWorker(config, logger);
      const collector = await startCollector({
        datastore,
        logger,
        secretKey,
        leaseSeconds: config.collectorLeaseSeconds,
        maxResultBytes: config.collectorMaxResultBytes,
        outageBufferBytes: config.collectorOutageBufferBytes,
        activityQueryChars: config.collectorActivity.queryChars,
        activityRawRetentionMinutes: config.collectorActivity.rawRetentionMinutes,
        sslDirectory: config.sslDirectory,
        hostPolicy: createHostPolicy({ allowed: config.allowedHosts, blocked: config.blockedHosts }),
      });
      // Before saying it runs: whoever waits for that line may signal at once.
      closeOnSignals(logger, async () => {
        await collector.stop();
        await datastore.close();
        logger.info("dbmon collector stopped");
      });
      logger.info({ instanceId: collector.instanceId }, "dbmon collector running");
    });
}
