import type { LlmClient } from "./client.js";
import type { LlmConfig } from "./config.js";
import { createAnthropicClient } from "./providers/anthropic.js";
import { createOpenAiCompatibleClient } from "./providers/openai-compatible.js";

/** The client for the configured provider. */
export function createLlmClient(config: LlmConfig): LlmClient {
  return config.provider === "anthropic"
    ? createAnthropicClient(config)
    : createOpenAiCompatibleClient(config);
}
