import { randomBytes } from "node:crypto";
import { type ChatResponse, type Message, Ollama } from "ollama";
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
import type { ProviderConfig } from "../config.js";
import { type ChatDriver, chatClient, stopReasonOf } from "./chat-client.js";
import { type Failure, guardCall, guardStream, otherFailure, revealHeaders } from "./errors.js";
import { toolResultText } from "./openai-compatible.js";

/**
 * The SDK has no per-request signal or timeout: each call gets a client of its own whose fetch
 * carries both, so aborting one request leaves the others alone.
 */
function ollamaFor(config: ProviderConfig, signal: AbortSignal | undefined): Ollama {
  const headers = revealHeaders(config);
  return new Ollama({
    host: config.baseUrl,
    headers,
    fetch: (input, init) =>
      fetch(input, {
        ...init,
        signal: AbortSignal.any(
          [AbortSignal.timeout(config.timeoutMs), signal, init?.signal ?? undefined].filter(
            (s): s is AbortSignal => s !== undefined,
          ),
        ),
      }),
  });
}

function classify(error: unknown): Failure {
  if (error instanceof Error && error.name === "ResponseError") {
    const status = (error as Error & { status_code?: number }).status_code;
    return status === undefined
      ? { kind: "other", message: error.message }
      : { kind: "status", status, detail: error.message };
  }
  return otherFailure(error);
}

/** A client for Ollama's own chat API (/api/chat). */
export function createOllamaClient(config: ProviderConfig, model: string): LlmClient {
  const body = (request: CompletionRequest) => ({
    model,
    messages: [
      ...(request.system === undefined ? [] : [{ role: "system", content: request.system }]),
      ...request.messages.flatMap(toOllamaMessages),
    ],
    options: {
      num_predict: request.maxTokens,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    },
    ...(request.tools?.length
      ? {
          tools: request.tools.map((tool) => ({
            type: "function",
            function: {
              name: tool.name,
              description: tool.description,
              parameters: tool.inputSchema as never,
            },
          })),
        }
      : {}),
  });

  const driver: ChatDriver = {
    chat: (request) =>
      guardCall(config, classify, async (): Promise<ChatAnswer> => {
        const answer = await ollamaFor(config, request.signal).chat({ ...body(request), stream: false });
        const content: (TextBlock | ToolUseBlock)[] = [];
        if (answer.message.content) {
          content.push({ type: "text", text: answer.message.content });
        }
        content.push(...toolUses(answer.message));
        return {
          content,
          stopReason: stopReasonOf(
            answer.done_reason,
            content.some((block) => block.type === "tool_use"),
          ),
          usage: { inputTokens: answer.prompt_eval_count ?? 0, outputTokens: answer.eval_count ?? 0 },
        };
      }),
    async *stream(request): AsyncGenerator<ChatStreamEvent> {
      let last: ChatResponse | undefined;
      let calledTools = false;
      yield* guardStream(config, classify, request.signal, async function* () {
        const parts = await ollamaFor(config, request.signal).chat({ ...body(request), stream: true });
        for await (const part of parts) {
          if (part.message.content) {
            yield { type: "delta", text: part.message.content };
          }
          for (const call of toolUses(part.message)) {
            calledTools = true;
            yield call;
          }
          last = part;
        }
      });
      yield {
        type: "done",
        stopReason: stopReasonOf(last?.done_reason, calledTools),
        usage: { inputTokens: last?.prompt_eval_count ?? 0, outputTokens: last?.eval_count ?? 0 },
      };
    },
  };
  return chatClient("ollama", model, driver);
}

/** Ollama's tool calls carry no id: each gets one, so tool results can refer to it. */
function toolUses(message: Message): ToolUseBlock[] {
  return (message.tool_calls ?? []).map((call) => ({
    type: "tool_use",
    id: `toolu_${randomBytes(12).toString("hex")}`,
    name: call.function.name,
    input: (call.function.arguments ?? {}) as Record<string, unknown>,
  }));
}

function toOllamaMessages(message: LlmMessage): Message[] {
  if (typeof message.content === "string") {
    return [{ role: message.role, content: message.content }];
  }
  const text = textOf(message.content);
  if (message.role === "assistant") {
    const calls = message.content.flatMap((block) =>
      block.type === "tool_use" ? [{ function: { name: block.name, arguments: block.input ?? {} } }] : [],
    );
    return [{ role: "assistant", content: text, ...(calls.length > 0 ? { tool_calls: calls } : {}) }];
  }
  const results: Message[] = message.content.flatMap((block) =>
    block.type === "tool_result" ? [{ role: "tool", content: toolResultText(block.content) }] : [],
  );
  return text ? [...results, { role: "user", content: text }] : results;
}

/** Names of the models the Ollama server has pulled (/api/tags). */
export async function listOllamaModels(config: ProviderConfig, signal?: AbortSignal): Promise<string[]> {
  return guardCall(config, classify, async () =>
    (await ollamaFor(config, signal).list()).models.map((model) => model.name),
  );
}

/** Embeddings through Ollama's /api/embed. */
export function createOllamaEmbedder(config: ProviderConfig, defaultModel: string): Embedder {
  return {
    provider: "ollama",
    model: defaultModel,
    embed: ({ input, model, signal }) =>
      guardCall(config, classify, async () => {
        const answer = await ollamaFor(config, signal).embed({ model: model ?? defaultModel, input });
        return {
          model: answer.model || (model ?? defaultModel),
          embeddings: answer.embeddings,
          totalTokens: answer.prompt_eval_count ?? 0,
        };
      }),
  };
}
