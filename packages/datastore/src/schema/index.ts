export * from "./collector.js";
export * from "./connections.js";
export * from "./system.js";
