export * from "./ai-analysis.js";
export * from "./auth.js";
export * from "./system.js";
