import { readFileSync, writeFileSync } from "node:fs";
import { renderEnvExample, withConfigurationTable } from "../src/config-table.js";

/**
 * Renders the README's configuration table and `.env.example` from the config schema (a test
 * checks both are current).
 */
const readme = new URL("../../../README.md", import.meta.url);
writeFileSync(readme, withConfigurationTable(readFileSync(readme, "utf8")));
writeFileSync(new URL("../../../.env.example", import.meta.url), renderEnvExample());
