import {
  type ChatAnswer,
  type ChatStreamEvent,
  type CompletionRequest,
  type LlmClient,
  textOf,
} from "../client.js";
import type { ChatProviderName } from "../config.js";

/** What each provider implements; `complete` is derived from `chat`. */
export interface ChatDriver {
  chat(request: CompletionRequest): Promise<ChatAnswer>;
  stream(request: CompletionRequest): AsyncIterable<ChatStreamEvent>;
}

export function chatClient(provider: ChatProviderName, model: string, driver: ChatDriver): LlmClient {
  return {
    provider,
    model,
    chat: (request) => driver.chat(request),
    stream: (request) => driver.stream(request),
    async complete(request) {
      const answer = await driver.chat(request);
      return {
        text: textOf(answer.content),
        usage: { inputTokens: answer.usage.inputTokens, outputTokens: answer.usage.outputTokens },
      };
    },
  };
}

/** Anthropic's name for why an OpenAI-style or Ollama answer stopped. */
export function stopReasonOf(reason: string | null | undefined, calledTools: boolean): string {
  if (calledTools || reason === "tool_calls" || reason === "function_call") {
    return "tool_use";
  }
  switch (reason) {
    case "stop":
    case null:
    case undefined:
    case "":
      return "end_turn";
    case "length":
      return "max_tokens";
    default:
      return reason;
  }
}
