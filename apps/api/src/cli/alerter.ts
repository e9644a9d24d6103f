import { startAlerter } from "@dbmon/alerter";
import { createOutboundHostPolicy } from "@dbmon/monitoring";
import type { Command } from "commander";
import { loadConfig } from "../config.js";
import { createLogger } from "../logger.js";
import { closeOnSignals } from "./lifecycle.js";
import { openWorker } from "./worker.js";

export function registerAlerterCommand(program: Command): void {
  program
    .command("alerter")
    .description(
      "run only the alerter (rules, blackout schedules, notifications); several may share a datastore",
    )
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      const { datastore, secretKey } = await openWorker(config, logger);
      const alerter = startAlerter({
        datastore,
        logger,
        secretKey,
        evaluationSeconds: config.evaluationSeconds,
        hosts: createOutboundHostPolicy({ allowed: config.notificationAllowedHosts }),
      });
      logger.info("dbmon alerter running");
      closeOnSignals(logger, async () => {
        await alerter.stop();
        await datastore.close();
        logger.info("dbmon alerter stopped");
      });
    });
}
