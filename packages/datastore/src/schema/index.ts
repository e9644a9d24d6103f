export * from "./ai-analysis.js";
export * from "./alerting.js";
export * from "./auth.js";
export * from "./clusters.js";
export * from "./collector.js";
export * from "./connections.js";
export * from "./probes.js";
export * from "./system.js";
