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
