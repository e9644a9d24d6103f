import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type { Completion, CompletionRequest, LlmClient } from "../client.js";
import type { LlmConfig } from "../config.js";
import { toLlmError } from "./errors.js";

const sdkErrors = { APIError, APIUserAbortError, APIConnectionTimeoutError };

/** A client for Anthropic's Messages API. */
export function createAnthropicClient(config: LlmConfig): LlmClient {
  const sdk = new Anthropic({
    apiKey: config.apiKey?.reveal() ?? null,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
  });
  return {
    provider: config.provider,
    model: config.model,
    async complete(request: CompletionRequest): Promise<Completion> {
      try {
        const message = await sdk.messages.create(
          {
            model: config.model,
            max_tokens: request.maxTokens,
            messages: request.messages,
            ...(request.system === undefined ? {} : { system: request.system }),
          },
          { signal: request.signal ?? null },
        );
        return {
          text: message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(""),
          usage: { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
        };
      } catch (error) {
        throw toLlmError(error, config.provider, config.apiKey, sdkErrors);
      }
    },
  };
}
