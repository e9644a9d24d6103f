import { buildOpenApiDocument } from "@dbmon/contract";
import { migrateDatastore, openDatastore } from "@dbmon/datastore";
import { Command } from "commander";
import type { CreatedAdmin } from "./auth/bootstrap.js";
import { registerAlerterCommand } from "./cli/alerter.js";
import { registerCollectorCommand } from "./cli/collector.js";
import { CommandError } from "./cli/context.js";
import { registerGroupCommands } from "./cli/groups.js";
import { closeOnSignals } from "./cli/lifecycle.js";
import { registerTokenCommands } from "./cli/tokens.js";
import { registerUserCommands } from "./cli/users.js";
import { ConfigError, loadConfig, loadDotEnv } from "./config.js";
import { DomainError } from "./errors.js";
import { createCommandLogger, createServiceLogger } from "./logger.js";
import { startService } from "./server.js";
import { version } from "./version.js";

const program = new Command()
  .name("dbmon")
  .description("dbmon: monitoring for fleets of PostgreSQL servers")
  .version(version)
  .showHelpAfterError();

program
  .command("serve", { isDefault: true })
  .description("serve the REST API with the collector (the default command)")
  .action(async () => {
    const config = loadConfig();
    const logger = createServiceLogger(config.logLevel, config.logFormat);
    const service = await startService(config, logger, { onAdminCreated: announceAdmin });
    closeOnSignals(logger, () => service.close());
  });

program
  .command("migrate")
  .description("apply pending datastore migrations and exit")
  .option("--json", "print the result as JSON")
  .action(async (options: { json?: boolean }) => {
    const config = loadConfig();
    const logger = createCommandLogger(config.logLevel, config.logFormat);
    if (config.databaseUrl) {
      await migrateDatastore(config.databaseUrl);
    } else {
      // The embedded server migrates as it opens.
      const datastore = await openDatastore({
        dataDir: config.dataDir,
        embeddedPort: config.embeddedPort,
        logger,
      });
      await datastore.close();
    }
    const datastore = config.databaseUrl ? "external" : "embedded";
    console.log(
      options.json ? JSON.stringify({ migrated: true, datastore }) : `datastore (${datastore}) is up to date`,
    );
  });

program
  .command("openapi")
  .description("print the OpenAPI 3.0.3 document")
  .option("--json", "print compact JSON on one line")
  .action((options: { json?: boolean }) => {
    const document = buildOpenApiDocument();
    console.log(options.json ? JSON.stringify(document) : JSON.stringify(document, null, 2));
  });

registerCollectorCommand(program);
registerAlerterCommand(program);
registerUserCommands(program);
registerGroupCommands(program);
registerTokenCommands(program);

/** The first superuser's generated password is printed once, on the console only (never logged). */
function announceAdmin(admin: CreatedAdmin): void {
  if (admin.generatedPassword === undefined) {
    return;
  }
  const rule = "=".repeat(72);
  console.log(
    [
      rule,
      `dbmon created the superuser '${admin.username}' with this generated password:`,
      "",
      `    ${admin.generatedPassword}`,
      "",
      "It is shown only this once. Log in and change it (dbmon user set-password), or set",
      "DBMON_ADMIN_PASSWORD before the first start to choose it yourself.",
      rule,
    ].join("\n"),
  );
}

loadDotEnv();
program.parseAsync().catch((error: unknown) => {
  // Refusals of the domain (a duplicate name, a weak password) are the operator's to read, like ours.
  if (error instanceof CommandError || error instanceof DomainError) {
    console.error(`dbmon: ${error.message}`);
    process.exit(1);
  }
  if (error instanceof ConfigError) {
    console.error(`dbmon: ${error.message}`);
    process.exit(2);
  }
  console.error(`dbmon: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
