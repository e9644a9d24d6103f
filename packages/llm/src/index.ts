export {
  type AnalyzeDatabasesOptions,
  analyzeDatabases,
  MAX_ANALYSED_DATABASES,
} from "./analysis/analyze.js";
export {
  ANALYSIS_TTL_MS,
  type AnalysisLogger,
  type DatabaseAnalysis,
  type GetDatabaseAnalysisOptions,
  getDatabaseAnalysis,
} from "./analysis/cache.js";
export { parseAnalysis } from "./analysis/parse.js";
export { type DatabaseFacts, formatBytes } from "./analysis/prompt.js";
export {
  type Completion,
  type CompletionRequest,
  type LlmClient,
  LlmError,
  type LlmMessage,
  type TokenUsage,
} from "./client.js";
export {
  type LlmConfig,
  LlmConfigError,
  type LlmProviderName,
  llmProviders,
  loadLlmConfig,
} from "./config.js";
export { createLlmClient } from "./create-client.js";
export { Secret } from "./secret.js";
