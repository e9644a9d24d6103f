export { type RollupCoverage, rollupCoverage } from "./coverage.js";
export { ROLLUP_SETTLING_SECONDS, type RollupPass, rollUpMetrics } from "./maintain.js";
export { type RollupTable, rolledUp, rollupDatabaseColumn, rollupTables } from "./tables.js";
