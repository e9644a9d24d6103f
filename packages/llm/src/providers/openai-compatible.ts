import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { Completion, CompletionRequest, LlmClient } from "../client.js";
import type { LlmConfig } from "../config.js";
import { toLlmError } from "./errors.js";

const sdkErrors = { APIError, APIUserAbortError, APIConnectionTimeoutError };

const OPENAI_ORIGIN = "https://api.openai.com";

/**
 * The SDK will not start without a credential. For a server that needs none it gets this one, which
 * never leaves the process: the null Authorization default header removes it from every request.
 */
const UNSENT_CREDENTIAL = "no-key";

/**
 * A client for the Chat Completions API: OpenAI itself, any OpenAI-compatible server, Gemini's and
 * Ollama's OpenAI-compatible endpoints.
 */
export function createOpenAiCompatibleClient(config: LlmConfig): LlmClient {
  const sdk = new OpenAI({
    apiKey: config.apiKey?.reveal() ?? UNSENT_CREDENTIAL,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    // Only our configuration counts: no organisation or project from OPENAI_* variables, and no
    // Authorization header at all for a server that needs no key.
    organization: null,
    project: null,
    ...(config.apiKey ? {} : { defaultHeaders: { authorization: null } }),
  });
  // OpenAI's own API rejects max_tokens for its reasoning models; compatible servers do not all know
  // its successor, max_completion_tokens.
  const tokenLimit =
    new URL(config.baseUrl).origin === OPENAI_ORIGIN ? "max_completion_tokens" : "max_tokens";
  return {
    provider: config.provider,
    model: config.model,
    async complete(request: CompletionRequest): Promise<Completion> {
      try {
        const completion = await sdk.chat.completions.create(
          {
            model: config.model,
            [tokenLimit]: request.maxTokens,
            messages: [
              ...(request.system === undefined ? [] : [{ role: "system" as const, content: request.system }]),
              ...request.messages,
            ],
            ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
          },
          { signal: request.signal ?? null },
        );
        return {
          text: completion.choices[0]?.message.content ?? "",
          usage: {
            inputTokens: completion.usage?.prompt_tokens ?? 0,
            outputTokens: completion.usage?.completion_tokens ?? 0,
          },
        };
      } catch (error) {
        throw toLlmError(error, config.provider, config.apiKey, sdkErrors);
      }
    },
  };
}
