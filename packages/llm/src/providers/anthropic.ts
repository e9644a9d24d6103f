import Anthropic, { APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk";
import type {
  ChatAnswer,
  ChatStreamEvent,
  CompletionRequest,
  ContentBlock,
  LlmClient,
  TextBlock,
  TokenUsage,
  ToolUseBlock,
} from "../client.js";
import type { ProviderConfig } from "../config.js";
import { type ChatDriver, chatClient } from "./chat-client.js";
import { classifySdkError, guardCall, guardStream, parseToolInput, revealHeaders } from "./errors.js";

const sdkErrors = { APIError, APIUserAbortError, APIConnectionTimeoutError };
const classify = (error: unknown) => classifySdkError(error, sdkErrors);

export function createAnthropicSdk(config: ProviderConfig): Anthropic {
  return new Anthropic({
    apiKey: config.apiKey?.reveal() ?? null,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    defaultHeaders: revealHeaders(config),
  });
}

/** A client for Anthropic's Messages API. */
export function createAnthropicClient(config: ProviderConfig, model: string): LlmClient {
  const sdk = createAnthropicSdk(config);
  const body = (request: CompletionRequest) => ({
    model,
    max_tokens: request.maxTokens,
    messages: request.messages.map((message) => ({
      role: message.role,
      content: typeof message.content === "string" ? message.content : message.content.map(toAnthropicBlock),
    })),
    ...(request.system === undefined ? {} : { system: request.system }),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            name: tool.name,
            description: tool.description,
            input_schema: { type: "object" as const, ...tool.inputSchema },
          })),
        }
      : {}),
  });

  const driver: ChatDriver = {
    chat: (request) =>
      guardCall(config, classify, async (): Promise<ChatAnswer> => {
        const message = await sdk.messages.create(body(request), { signal: request.signal ?? null });
        return {
          content: message.content.flatMap((block): (TextBlock | ToolUseBlock)[] =>
            block.type === "text"
              ? [{ type: "text" as const, text: block.text }]
              : block.type === "tool_use"
                ? [
                    {
                      type: "tool_use" as const,
                      id: block.id,
                      name: block.name,
                      input: (block.input ?? {}) as Record<string, unknown>,
                    },
                  ]
                : [],
          ),
          stopReason: message.stop_reason ?? "end_turn",
          usage: usageOf(message.usage),
        };
      }),
    async *stream(request): AsyncGenerator<ChatStreamEvent> {
      const tools = new Map<number, { id: string; name: string; json: string }>();
      let usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
      let stopReason = "end_turn";
      yield* guardStream(config, classify, request.signal, async function* () {
        const events = await sdk.messages.create(
          { ...body(request), stream: true },
          { signal: request.signal ?? null },
        );
        for await (const event of events) {
          switch (event.type) {
            case "message_start":
              usage = usageOf(event.message.usage);
              break;
            case "content_block_start":
              if (event.content_block.type === "tool_use") {
                tools.set(event.index, {
                  id: event.content_block.id,
                  name: event.content_block.name,
                  json: "",
                });
              }
              break;
            case "content_block_delta":
              if (event.delta.type === "text_delta") {
                yield { type: "delta", text: event.delta.text };
              } else if (event.delta.type === "input_json_delta") {
                const tool = tools.get(event.index);
                if (tool) {
                  tool.json += event.delta.partial_json;
                }
              }
              break;
            case "content_block_stop": {
              const tool = tools.get(event.index);
              if (tool) {
                yield { type: "tool_use", id: tool.id, name: tool.name, input: parseToolInput(tool.json) };
              }
              break;
            }
            case "message_delta":
              stopReason = event.delta.stop_reason ?? stopReason;
              usage = { ...usage, outputTokens: event.usage.output_tokens };
              break;
          }
        }
      });
      yield { type: "done", stopReason, usage };
    },
  };
  return chatClient("anthropic", model, driver);
}

/** Model ids, as GET /v1/models lists them. */
export async function listAnthropicModels(config: ProviderConfig, signal?: AbortSignal): Promise<string[]> {
  const sdk = createAnthropicSdk(config);
  return guardCall(config, classify, async () => {
    const ids: string[] = [];
    for await (const model of sdk.models.list({}, { signal: signal ?? null })) {
      ids.push(model.id);
    }
    return ids;
  });
}

function usageOf(usage: {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}): TokenUsage {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheCreationTokens: usage.cache_creation_input_tokens ?? 0,
    cacheReadTokens: usage.cache_read_input_tokens ?? 0,
  };
}

/** Only the fields the Messages API knows; clients may send more (timestamps, UI state). */
function toAnthropicBlock(block: ContentBlock): Anthropic.ContentBlockParam {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: block.input };
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: block.tool_use_id,
        content:
          typeof block.content === "string"
            ? block.content
            : block.content.map((part) => ({ type: "text" as const, text: part.text })),
        ...(block.is_error === undefined ? {} : { is_error: block.is_error }),
      };
  }
}
