import { readFileSync, writeFileSync } from "node:fs";
import { withConfigurationTable } from "../src/config-table.js";

/** Renders the README's configuration table from the config schema (a test checks it is current). */
const readme = new URL("../../../README.md", import.meta.url);
writeFileSync(readme, withConfigurationTable(readFileSync(readme, "utf8")));
