import {
  type ChatAnswer,
  type ChatProviderName,
  type ChatStreamEvent,
  type CompletionRequest,
  chatProviders,
  type Embedder,
  type Embeddings,
  type EmbedInputType,
  embedProviders,
  type LlmClient,
  LlmError,
  type LlmMessage,
  type LlmProviders,
  type MultimodalContent,
  type ProviderConfig,
  type TokenUsage,
  type ToolDefinition,
} from "@dbmon/llm";
import type { RequestAccess } from "../auth/access.js";
import { addressBlock } from "../auth/client-address.js";
import type { LoginThrottle } from "../auth/throttle.js";
import type { Clock } from "../clock.js";
import { InvalidInput, OperationFailed, TooManyRequests, Unavailable } from "../errors.js";
import type { Logger } from "../logger.js";
import { OpenStreamLimit } from "../open-stream-limit.js";
import { ShortLivedCache } from "../short-lived-cache.js";
import { buildSystemPrompt, type PinnedMemorySource } from "./system-prompt.js";

/** What the providers list calls each chat provider. */
const displayNames: Record<ChatProviderName, string> = {
  anthropic: "Anthropic Claude",
  openai: "OpenAI",
  gemini: "Google Gemini",
  ollama: "Ollama",
};

/** The variable a provider's configuration needs, for the 400 of a request naming an unconfigured one. */
const neededVariables: Record<ChatProviderName, string> = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY or DBMON_LLM_OPENAI_BASE_URL",
  gemini: "GEMINI_API_KEY",
  ollama: "DBMON_LLM_OLLAMA_URL",
};

const MODEL_NAME = /^[A-Za-z0-9\-.:/_]{1,256}$/;
export const INVALID_MODEL =
  "Invalid model name: must be 1-256 characters and contain only alphanumeric characters, hyphens, dots, colons, forward slashes, and underscores";
export const CHAT_FAILED = "LLM request failed";

/** Health is probed at most this often; requests in between get the last result. */
export const HEALTH_TTL_MS = 30_000;
/** A provider's model list is asked for at most this often; every caller shares it meanwhile. */
const MODELS_TTL_MS = 60_000;
const MINUTE_MS = 60_000;
const PROBE_TIMEOUT_MS = 10_000;

export interface ChatInput {
  messages: { role: "user" | "assistant" | "system"; content: LlmMessage["content"] }[];
  tools: ToolDefinition[];
  system?: string | undefined;
  provider?: string | undefined;
  model?: string | undefined;
}

export interface ProviderHealth {
  name: string;
  configured: boolean;
  reachable: boolean;
  latency_ms: number | null;
  error?: string;
}

export interface LlmHealth {
  status: "ok" | "degraded" | "unconfigured";
  providers: ProviderHealth[];
  checked_at: string;
}

/** The wire's token usage (when `debug`), as the reference reports it. */
export function presentUsage(provider: string, usage: TokenUsage) {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const prompt = usage.inputTokens;
  return {
    provider,
    input_tokens: prompt,
    output_tokens: usage.outputTokens,
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    cache_creation_tokens: usage.cacheCreationTokens ?? 0,
    cache_read_tokens: cacheRead,
    cache_savings_percentage:
      prompt + cacheRead > 0 ? Math.round((cacheRead / (prompt + cacheRead)) * 1000) / 10 : 0,
  };
}

/**
 * The LLM proxy: which providers exist, their models and health, chat (whole or streamed),
 * embeddings and reranking. Provider failures are logged in the LlmError's words, which never hold
 * a key, and reach the caller as the reference's generic messages.
 */
export class LlmProxy {
  #health: { at: number; result: Promise<LlmHealth> } | undefined;
  /** The streamed chats of each user, capped. */
  readonly streams: OpenStreamLimit;
  /** Each chat provider's model list, kept briefly and shared by all callers, anonymous ones included. */
  readonly #models = new ShortLivedCache<ChatProviderName, { models: { name: string }[] }>(MODELS_TTL_MS);

  constructor(
    private readonly deps: {
      llm: LlmProviders;
      logger: Logger;
      clock: Clock;
      /** Absent until pinned memories are stored: the prompt then has none. */
      memories?: PinnedMemorySource;
      /** Tool-use rounds the model may take for one question (DBMON_LLM_MAX_ITERATIONS). */
      maxToolRounds: number;
      /** Streamed chats one user may have open at once in this process. */
      streamsPerUser: number;
      /** Streamed chats all users together may have open at once in this process. */
      streamsPerProcess: number;
      /** Counts anonymous model listings per client address, across instances. */
      throttle: LoginThrottle;
      anonymousModelRequestsPerMinute: number;
    },
  ) {
    this.streams = new OpenStreamLimit(deps.streamsPerUser, deps.streamsPerProcess, "chat streams");
  }

  /**
   * The provider request of a chat: the system prompt with the caller's memories and description,
   * system-role messages folded into it, the turns and the tools. A conversation whose current
   * question has already taken the most tool-use rounds allowed is refused before the provider is
   * asked: the client runs the tool loop, and this is where a runaway one is stopped.
   */
  async completionRequest(
    input: ChatInput,
    access: RequestAccess,
    signal?: AbortSignal,
  ): Promise<CompletionRequest> {
    const { llm, memories, maxToolRounds } = this.deps;
    const rounds = toolRoundsOfQuestion(input.messages);
    if (rounds >= maxToolRounds) {
      throw new InvalidInput(
        `Tool-use limit reached: the model has taken ${rounds} tool-use rounds for this question, the most allowed`,
      );
    }
    const [caller, privileges] = await Promise.all([access.requireCaller(), access.privileges()]);
    const pinned = memories ? await memories.pinnedFor(caller.userId) : [];
    const systemTurns = input.messages.flatMap((message) =>
      message.role === "system" && typeof message.content === "string" ? [message.content] : [],
    );
    const system = buildSystemPrompt(
      [input.system ?? "", ...systemTurns].filter(Boolean).join("\n\n"),
      pinned,
      {
        username: caller.username,
        displayName: caller.displayName ?? "",
        notes: caller.notes ?? "",
        isSuperuser: caller.isSuperuser,
        groups: privileges.groups,
        permissions: [...privileges.permissions],
      },
    );
    return {
      system,
      messages: input.messages.flatMap((message): LlmMessage[] =>
        message.role === "system" ? [] : [{ role: message.role, content: message.content }],
      ),
      tools: input.tools,
      maxTokens: llm.maxTokens,
      temperature: llm.temperature,
      ...(signal ? { signal } : {}),
    };
  }

  providers() {
    const { llm } = this.deps;
    const chat = llm.defaultChat;
    return {
      providers: chatProviders
        .filter((name) => llm.provider(name))
        .map((name) => ({ name, display: displayNames[name], isDefault: chat?.provider === name })),
      defaultModel: chat?.model ?? "",
    };
  }

  /**
   * A provider's chat models. The operation is public, so the provider is asked at most once a
   * minute (every caller shares the list; a failure is not kept) and anonymous callers are limited
   * per client address: nobody can make dbmon hammer the provider with its key.
   */
  async models(
    provider: string | undefined,
    access: RequestAccess,
    clientAddress: string,
  ): Promise<{ models: { name: string }[] }> {
    if (!provider) {
      throw new InvalidInput("Provider parameter is required");
    }
    const name = this.configuredChatProvider(provider);
    if (!(await access.caller())) {
      const requests = await this.deps.throttle.hit(`llm-models:${addressBlock(clientAddress)}`, MINUTE_MS);
      if (requests > this.deps.anonymousModelRequestsPerMinute) {
        throw new TooManyRequests("Too many model list requests, please try again later", MINUTE_MS / 1000);
      }
    }
    return this.#models.get(name, () => this.listModels(name));
  }

  private async listModels(name: ChatProviderName): Promise<{ models: { name: string }[] }> {
    try {
      // No caller's signal: the answer is shared, and the SDKs' time limit bounds the request.
      const ids = await this.deps.llm.listModels(name);
      return { models: ids.map((id) => ({ name: id })) };
    } catch (error) {
      this.logFailure(error, "listing models failed", { provider: name });
      throw new OperationFailed("Failed to list models");
    }
  }

  /** The health of every configured provider, probed at most every 30 s; concurrent callers share a probe. */
  health(): Promise<LlmHealth> {
    const now = this.deps.clock.now().getTime();
    if (!this.#health || now - this.#health.at >= HEALTH_TTL_MS) {
      this.#health = { at: now, result: this.probeAll() };
    }
    return this.#health.result;
  }

  private async probeAll(): Promise<LlmHealth> {
    const { llm, clock } = this.deps;
    const providers = await Promise.all(
      llm.configured.map(async ({ name }): Promise<ProviderHealth> => {
        const started = performance.now();
        try {
          await llm.probe(name, AbortSignal.timeout(PROBE_TIMEOUT_MS));
          return {
            name,
            configured: true,
            reachable: true,
            latency_ms: Math.round(performance.now() - started),
          };
        } catch (error) {
          this.logFailure(error, "LLM provider health probe failed", { provider: name });
          return {
            name,
            configured: true,
            reachable: false,
            latency_ms: null,
            error: error instanceof LlmError ? error.message : "probe failed",
          };
        }
      }),
    );
    return {
      status:
        providers.length === 0 ? "unconfigured" : providers.every((p) => p.reachable) ? "ok" : "degraded",
      providers,
      checked_at: clock.now().toISOString(),
    };
  }

  /** The client a chat request asks for: its provider and model, else the defaults. */
  chatClient(input: Pick<ChatInput, "provider" | "model">): LlmClient {
    const { llm } = this.deps;
    if (input.model !== undefined && input.model !== "" && !MODEL_NAME.test(input.model)) {
      throw new InvalidInput(INVALID_MODEL);
    }
    const fallback = llm.defaultChat;
    const provider = input.provider ? this.configuredChatProvider(input.provider) : fallback?.provider;
    if (!provider) {
      throw new Unavailable("No chat provider is configured");
    }
    const model = input.model || (provider === fallback?.provider ? fallback.model : undefined);
    if (!model) {
      throw new InvalidInput(`A model is required for the ${provider} provider`);
    }
    return llm.chat(provider, model);
  }

  /** One round trip. */
  async chat(client: LlmClient, request: CompletionRequest): Promise<ChatAnswer> {
    try {
      return await client.chat(request);
    } catch (error) {
      this.logFailure(error, "LLM chat failed", { provider: client.provider, model: client.model });
      throw new OperationFailed(CHAT_FAILED);
    }
  }

  /**
   * The answer as it streams, on one of the caller's stream slots (429 when they are all taken). The
   * first event is awaited before this returns, so a provider that fails at once is a plain 500; a
   * failure later is thrown by the iterator as OperationFailed. The whole stream has the provider's
   * time limit (`DBMON_LLM_TIMEOUT_SECONDS`), not only its start, which is all the SDKs time: when it
   * passes, the provider request is aborted and the iterator throws at once. The slot is given back
   * when the iterator ends or is left, or when `request.signal` aborts (a client gone before reading).
   */
  async stream(
    client: LlmClient,
    request: CompletionRequest,
    access: RequestAccess,
  ): Promise<AsyncIterable<ChatStreamEvent>> {
    const caller = await access.requireCaller();
    const limitMs = this.requireProvider(client.provider).timeoutMs;
    const release = this.streams.open(caller.userId);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), limitMs);
    const finish = () => {
      clearTimeout(timer);
      release();
    };
    request.signal?.addEventListener("abort", finish, { once: true });
    // Rejects when the time is up, so a read waiting on a provider that went quiet stops then too.
    const expired = new Promise<never>((_, reject) => {
      deadline.signal.addEventListener("abort", () => reject(deadline.signal.reason), { once: true });
    });
    expired.catch(() => {});
    const signal = request.signal ? AbortSignal.any([request.signal, deadline.signal]) : deadline.signal;
    const iterator = client.stream({ ...request, signal })[Symbol.asyncIterator]();
    const context = { provider: client.provider, model: client.model };
    const read = () =>
      Promise.race([iterator.next(), expired]).catch((error: unknown): never => {
        if (request.signal?.aborted) {
          throw new OperationFailed(CHAT_FAILED);
        }
        if (deadline.signal.aborted) {
          this.deps.logger.warn({ ...context, limitMs }, "LLM chat stream stopped at its time limit");
          throw new OperationFailed(`LLM request stopped after the ${limitMs / 1000} s time limit`);
        }
        this.logFailure(error, "LLM chat stream failed", context);
        throw new OperationFailed(CHAT_FAILED);
      });
    const first = await read().catch((error: unknown) => {
      finish();
      throw error;
    });
    return {
      async *[Symbol.asyncIterator]() {
        try {
          if (!first.done) {
            yield first.value;
          }
          while (true) {
            const next = await read();
            if (next.done) {
              return;
            }
            yield next.value;
          }
        } finally {
          finish();
          if (deadline.signal.aborted) {
            // Aborted already; a read may still be settling, and the end of the stream waits for nobody.
            iterator.return?.().catch(() => {});
          } else {
            // The caller left early (a disconnect): stop reading, which aborts the request.
            await iterator.return?.();
          }
        }
      },
    };
  }

  async embed(
    input: { input: string | string[]; model?: string; provider?: string; input_type?: EmbedInputType },
    signal?: AbortSignal,
  ) {
    const embedder = this.embedder(input.provider);
    this.checkModel(input.model);
    const result = await this.call(embedder.provider, () =>
      embedder.embed({
        input: typeof input.input === "string" ? [input.input] : input.input,
        ...(input.model ? { model: input.model } : {}),
        ...(input.input_type ? { inputType: input.input_type } : {}),
        ...(signal ? { signal } : {}),
      }),
    );
    return presentEmbeddings(embedder.provider, result);
  }

  async embedMultimodal(
    input: { inputs: { content: MultimodalContent[] }[]; model?: string; input_type?: EmbedInputType },
    signal?: AbortSignal,
  ) {
    const embedder = this.deps.llm.multimodalEmbedder;
    if (!embedder) {
      throw new Unavailable("No multimodal embedding provider is configured");
    }
    this.checkModel(input.model);
    const result = await this.call(embedder.provider, () =>
      embedder.embed({
        inputs: input.inputs,
        ...(input.model ? { model: input.model } : {}),
        ...(input.input_type ? { inputType: input.input_type } : {}),
        ...(signal ? { signal } : {}),
      }),
    );
    return presentEmbeddings(embedder.provider, result);
  }

  async rerank(
    input: { query: string; documents: string[]; top_k?: number; model?: string; return_documents?: boolean },
    signal?: AbortSignal,
  ) {
    const reranker = this.deps.llm.reranker;
    if (!reranker) {
      throw new Unavailable("No rerank provider is configured");
    }
    this.checkModel(input.model);
    const result = await this.call(reranker.provider, () =>
      reranker.rerank({
        query: input.query,
        documents: input.documents,
        ...(input.top_k ? { topK: input.top_k } : {}),
        ...(input.model ? { model: input.model } : {}),
        ...(signal ? { signal } : {}),
      }),
    );
    return {
      provider: reranker.provider,
      model: result.model,
      results: result.results.map((item) => ({
        index: item.index,
        relevance_score: item.relevanceScore,
        ...(input.return_documents ? { document: input.documents[item.index] ?? "" } : {}),
      })),
      usage: {
        ...(result.usage.totalTokens === undefined ? {} : { total_tokens: result.usage.totalTokens }),
        ...(result.usage.searchUnits === undefined ? {} : { search_units: result.usage.searchUnits }),
      },
    };
  }

  private embedder(provider: string | undefined): Embedder {
    const { llm } = this.deps;
    if (provider && provider !== llm.embedder?.provider) {
      if (!(embedProviders as readonly string[]).includes(provider)) {
        throw new InvalidInput("Unsupported provider");
      }
      const named = llm.embedderOf(provider as (typeof embedProviders)[number]);
      if (!named) {
        throw new InvalidInput(`The ${provider} provider is not configured`);
      }
      return named;
    }
    if (!llm.embedder) {
      throw new Unavailable("No embedding provider is configured");
    }
    return llm.embedder;
  }

  private checkModel(model: string | undefined): void {
    if (model !== undefined && !MODEL_NAME.test(model)) {
      throw new InvalidInput(INVALID_MODEL);
    }
  }

  private async call<T>(provider: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      this.logFailure(error, "LLM request failed", { provider });
      throw new OperationFailed(CHAT_FAILED);
    }
  }

  private requireProvider(name: ChatProviderName): ProviderConfig {
    const config = this.deps.llm.provider(name);
    if (!config) {
      throw new Unavailable(`The ${name} provider is not configured`);
    }
    return config;
  }

  private configuredChatProvider(provider: string): ChatProviderName {
    if (!(chatProviders as readonly string[]).includes(provider)) {
      throw new InvalidInput("Unsupported provider");
    }
    const name = provider as ChatProviderName;
    if (!this.deps.llm.provider(name)) {
      throw new InvalidInput(`${name} provider requires ${neededVariables[name]}`);
    }
    return name;
  }

  /** An LlmError's message is free of secrets; anything else is reduced to its class name. */
  private logFailure(error: unknown, message: string, context: Record<string, string>): void {
    this.deps.logger.warn(
      {
        ...context,
        err: error instanceof LlmError ? error.message : error instanceof Error ? error.name : typeof error,
      },
      message,
    );
  }
}

/**
 * The tool-use rounds the current question has taken: the model's answers that called a tool since
 * the last user turn that is more than tool results (a question, or a follow-up the user typed).
 */
function toolRoundsOfQuestion(messages: readonly ChatInput["messages"][number][]): number {
  let rounds = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const { role, content } = messages[index] as ChatInput["messages"][number];
    if (
      role === "assistant" &&
      typeof content !== "string" &&
      content.some((block) => block.type === "tool_use")
    ) {
      rounds += 1;
    } else if (
      role === "user" &&
      (typeof content === "string" || content.some((block) => block.type !== "tool_result"))
    ) {
      break;
    }
  }
  return rounds;
}

function presentEmbeddings(provider: string, result: Embeddings) {
  return {
    provider,
    model: result.model,
    embeddings: result.embeddings,
    usage: { total_tokens: result.totalTokens },
  };
}
