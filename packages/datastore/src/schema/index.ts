export * from "./ai-analysis.js";
export * from "./system.js";
