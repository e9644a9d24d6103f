import OpenAI, { APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import {
  type ChatAnswer,
  type ChatStreamEvent,
  type CompletionRequest,
  type Embedder,
  type LlmClient,
  type LlmMessage,
  type TextBlock,
  type ToolUseBlock,
  textOf,
} from "../client.js";
import type { ChatProviderName, ProviderConfig } from "../config.js";
import { type ChatDriver, chatClient, stopReasonOf } from "./chat-client.js";
import { classifySdkError, guardCall, guardStream, parseToolInput, revealHeaders } from "./errors.js";

const sdkErrors = { APIError, APIUserAbortError, APIConnectionTimeoutError };
const classify = (error: unknown) => classifySdkError(error, sdkErrors);

const OPENAI_ORIGIN = "https://api.openai.com";

/**
 * The SDK will not start without a credential. For a server that needs none it gets this one, which
 * never leaves the process: the null Authorization default header removes it from every request.
 */
const UNSENT_CREDENTIAL = "no-key";

function createOpenAiSdk(config: ProviderConfig): OpenAI {
  return new OpenAI({
    apiKey: config.apiKey?.reveal() ?? UNSENT_CREDENTIAL,
    baseURL: config.baseUrl,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    // Only our configuration counts: no organisation or project from OPENAI_* variables, and no
    // Authorization header at all for a server that needs no key.
    organization: null,
    project: null,
    defaultHeaders: { ...revealHeaders(config), ...(config.apiKey ? {} : { authorization: null }) },
  });
}

type ChatMessage = OpenAI.Chat.ChatCompletionMessageParam;

/**
 * A client for the Chat Completions API: OpenAI itself, any OpenAI-compatible server and Gemini's
 * OpenAI-compatible endpoint.
 */
export function createOpenAiCompatibleClient(
  config: ProviderConfig,
  provider: ChatProviderName,
  model: string,
): LlmClient {
  const sdk = createOpenAiSdk(config);
  // OpenAI's own API rejects max_tokens for its reasoning models; compatible servers do not all know
  // its successor, max_completion_tokens.
  const tokenLimit =
    new URL(config.baseUrl).origin === OPENAI_ORIGIN ? "max_completion_tokens" : "max_tokens";
  const body = (request: CompletionRequest) => ({
    model,
    [tokenLimit]: request.maxTokens,
    messages: [
      ...(request.system === undefined ? [] : [{ role: "system" as const, content: request.system }]),
      ...request.messages.flatMap(toOpenAiMessages),
    ],
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function" as const,
            function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
          })),
        }
      : {}),
  });

  const driver: ChatDriver = {
    chat: (request) =>
      guardCall(config, classify, async (): Promise<ChatAnswer> => {
        const completion = await sdk.chat.completions.create(body(request) as never, {
          signal: request.signal ?? null,
        });
        const choice = (completion as OpenAI.Chat.ChatCompletion).choices[0];
        const content: (TextBlock | ToolUseBlock)[] = [];
        if (choice?.message.content) {
          content.push({ type: "text", text: choice.message.content });
        }
        for (const call of choice?.message.tool_calls ?? []) {
          if (call.type === "function") {
            content.push({
              type: "tool_use",
              id: call.id,
              name: call.function.name,
              input: parseToolInput(call.function.arguments),
            });
          }
        }
        const usage = (completion as OpenAI.Chat.ChatCompletion).usage;
        return {
          content,
          stopReason: stopReasonOf(
            choice?.finish_reason,
            content.some((block) => block.type === "tool_use"),
          ),
          usage: {
            inputTokens: usage?.prompt_tokens ?? 0,
            outputTokens: usage?.completion_tokens ?? 0,
            cacheReadTokens: usage?.prompt_tokens_details?.cached_tokens ?? 0,
          },
        };
      }),
    async *stream(request): AsyncGenerator<ChatStreamEvent> {
      const calls = new Map<number, { id: string; name: string; json: string }>();
      let finish: string | null = null;
      let inputTokens = 0;
      let outputTokens = 0;
      yield* guardStream(config, classify, request.signal, async function* () {
        const chunks = await sdk.chat.completions.create(
          { ...body(request), stream: true, stream_options: { include_usage: true } } as never,
          { signal: request.signal ?? null },
        );
        for await (const chunk of chunks as unknown as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
          if (chunk.usage) {
            inputTokens = chunk.usage.prompt_tokens;
            outputTokens = chunk.usage.completion_tokens;
          }
          const choice = chunk.choices[0];
          if (!choice) {
            continue;
          }
          if (choice.delta.content) {
            yield { type: "delta", text: choice.delta.content };
          }
          for (const part of choice.delta.tool_calls ?? []) {
            const call = calls.get(part.index) ?? { id: "", name: "", json: "" };
            call.id = part.id ?? call.id;
            call.name = part.function?.name ?? call.name;
            call.json += part.function?.arguments ?? "";
            calls.set(part.index, call);
          }
          finish = choice.finish_reason ?? finish;
        }
      });
      for (const call of calls.values()) {
        yield { type: "tool_use", id: call.id, name: call.name, input: parseToolInput(call.json) };
      }
      yield {
        type: "done",
        stopReason: stopReasonOf(finish, calls.size > 0),
        usage: { inputTokens, outputTokens },
      };
    },
  };
  return chatClient(provider, model, driver);
}

/** Anthropic-style turns as Chat Completions messages: tool results become `tool` messages. */
function toOpenAiMessages(message: LlmMessage): ChatMessage[] {
  if (typeof message.content === "string") {
    return [{ role: message.role, content: message.content }];
  }
  const text = textOf(message.content);
  if (message.role === "assistant") {
    const toolCalls = message.content.flatMap((block) =>
      block.type === "tool_use"
        ? [
            {
              id: block.id,
              type: "function" as const,
              function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
            },
          ]
        : [],
    );
    return [
      {
        role: "assistant",
        content: text || null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
    ];
  }
  const results: ChatMessage[] = message.content.flatMap((block) =>
    block.type === "tool_result"
      ? [{ role: "tool" as const, tool_call_id: block.tool_use_id, content: toolResultText(block.content) }]
      : [],
  );
  return text ? [...results, { role: "user", content: text }] : results;
}

export function toolResultText(content: string | TextBlock[]): string {
  return typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");
}

/** Model ids of the provider, filtered to chat models as the reference lists them. */
export async function listOpenAiCompatibleModels(
  config: ProviderConfig,
  provider: "openai" | "gemini",
  signal?: AbortSignal,
): Promise<string[]> {
  const sdk = createOpenAiSdk(config);
  return guardCall(config, classify, async () => {
    const ids: string[] = [];
    for await (const model of sdk.models.list({ signal: signal ?? null })) {
      ids.push(model.id);
    }
    return provider === "gemini"
      ? ids.map((id) => id.replace(/^models\//, "")).filter((id) => !/embed|aqa|imagen|veo/i.test(id))
      : ids.filter(
          (id) =>
            (id.includes("gpt") || id.startsWith("o1-") || id.startsWith("o3-")) &&
            !/embedding|whisper|tts|audio|dall-e/.test(id),
        );
  });
}

/** Embeddings through OpenAI's API or Gemini's OpenAI-compatible endpoint. */
export function createOpenAiEmbedder(
  config: ProviderConfig,
  provider: "openai" | "gemini",
  defaultModel: string,
): Embedder {
  const sdk = createOpenAiSdk(config);
  return {
    provider,
    model: defaultModel,
    embed: ({ input, model, signal }) =>
      guardCall(config, classify, async () => {
        const answer = await sdk.embeddings.create(
          { model: model ?? defaultModel, input, encoding_format: "float" },
          { signal: signal ?? null },
        );
        return {
          model: answer.model || (model ?? defaultModel),
          embeddings: [...answer.data].sort((a, b) => a.index - b.index).map((item) => item.embedding),
          totalTokens: answer.usage?.total_tokens ?? 0,
        };
      }),
  };
}
