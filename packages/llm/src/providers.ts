import type { Embedder, LlmClient, MultimodalEmbedder, Reranker } from "./client.js";
import type {
  ChatProviderName,
  EmbedProviderName,
  LlmConfig,
  LlmProviderName,
  ProviderConfig,
  RerankProviderName,
} from "./config.js";
import { defaultModels } from "./config.js";
import { createAnthropicClient, listAnthropicModels } from "./providers/anthropic.js";
import { createCohereReranker, probeCohere } from "./providers/cohere.js";
import { createOllamaClient, createOllamaEmbedder, listOllamaModels } from "./providers/ollama.js";
import {
  createOpenAiCompatibleClient,
  createOpenAiEmbedder,
  listOpenAiCompatibleModels,
} from "./providers/openai-compatible.js";
import {
  createVoyageEmbedder,
  createVoyageMultimodalEmbedder,
  createVoyageReranker,
  probeVoyage,
} from "./providers/voyage.js";

/** Clients kept for models named in requests; beyond this many the cache starts afresh. */
const MAX_CACHED_CLIENTS = 32;

/**
 * The configured providers and a client for each capability. SDK clients are built once and
 * reused; a request naming another provider or model gets a client of its own, kept for reuse.
 */
export class LlmProviders {
  readonly #config: LlmConfig | null;
  readonly #clients = new Map<string, LlmClient>();
  readonly defaultChat: LlmClient | null;
  readonly embedder: Embedder | null;
  readonly multimodalEmbedder: MultimodalEmbedder | null;
  readonly reranker: Reranker | null;

  constructor(config: LlmConfig | null) {
    this.#config = config;
    this.defaultChat = config?.chat ? this.chat(config.chat.provider, config.chat.model) : null;
    this.embedder = this.#embedder(config);
    const multimodal = config?.multimodal && this.provider(config.multimodal.provider);
    this.multimodalEmbedder =
      multimodal && config?.multimodal
        ? createVoyageMultimodalEmbedder(multimodal, config.multimodal.model)
        : null;
    this.reranker = this.#reranker(config);
  }

  /** Configured providers, in listing order. */
  get configured(): readonly ProviderConfig[] {
    return this.#config?.providers ?? [];
  }

  get maxTokens(): number {
    return this.#config?.maxTokens ?? 4096;
  }

  get temperature(): number {
    return this.#config?.temperature ?? 0.7;
  }

  provider(name: LlmProviderName): ProviderConfig | undefined {
    return this.configured.find((provider) => provider.name === name);
  }

  /** A chat client for a configured provider and a model. */
  chat(name: ChatProviderName, model: string): LlmClient {
    const key = `${name}\u0000${model}`;
    const cached = this.#clients.get(key);
    if (cached) {
      return cached;
    }
    const config = this.provider(name);
    if (!config) {
      throw new Error(`${name} is not configured`);
    }
    const client =
      name === "anthropic"
        ? createAnthropicClient(config, model)
        : name === "ollama"
          ? createOllamaClient(config, model)
          : createOpenAiCompatibleClient(config, name, model);
    if (this.#clients.size >= MAX_CACHED_CLIENTS) {
      this.#clients.clear();
    }
    this.#clients.set(key, client);
    return client;
  }

  /** The chat models a configured provider offers. */
  listModels(name: ChatProviderName, signal?: AbortSignal): Promise<string[]> {
    const config = this.provider(name);
    if (!config) {
      throw new Error(`${name} is not configured`);
    }
    switch (name) {
      case "anthropic":
        return listAnthropicModels(config, signal);
      case "ollama":
        return listOllamaModels(config, signal);
      default:
        return listOpenAiCompatibleModels(config, name, signal);
    }
  }

  /** Whether a configured provider answers: a model list, or the cheapest equivalent. */
  async probe(name: LlmProviderName, signal?: AbortSignal): Promise<void> {
    const config = this.provider(name);
    if (!config) {
      throw new Error(`${name} is not configured`);
    }
    if (name === "voyage") {
      // Voyage lists no models: a one-word embedding with a text model stands in for the list.
      const embed = this.#config?.embed;
      await probeVoyage(
        config,
        embed?.provider === "voyage" ? embed.model : defaultModels.embed.voyage,
        signal,
      );
    } else if (name === "cohere") {
      await probeCohere(config, signal);
    } else {
      await this.listModels(name, signal);
    }
  }

  #embedder(config: LlmConfig | null): Embedder | null {
    const embed = config?.embed;
    const provider = embed && this.provider(embed.provider);
    if (!embed || !provider) {
      return null;
    }
    return embedderFor(embed.provider, provider, embed.model);
  }

  /** An embedder of a configured embedding provider, for a request that names one. */
  embedderOf(name: EmbedProviderName, model?: string): Embedder | null {
    const provider = this.provider(name);
    return provider ? embedderFor(name, provider, model ?? defaultModels.embed[name]) : null;
  }

  #reranker(config: LlmConfig | null): Reranker | null {
    const rerank = config?.rerank;
    const provider = rerank && this.provider(rerank.provider);
    if (!rerank || !provider) {
      return null;
    }
    return rerankerFor(rerank.provider, provider, rerank.model);
  }
}

function embedderFor(name: EmbedProviderName, config: ProviderConfig, model: string): Embedder {
  switch (name) {
    case "voyage":
      return createVoyageEmbedder(config, model);
    case "ollama":
      return createOllamaEmbedder(config, model);
    default:
      return createOpenAiEmbedder(config, name, model);
  }
}

function rerankerFor(name: RerankProviderName, config: ProviderConfig, model: string): Reranker {
  return name === "voyage" ? createVoyageReranker(config, model) : createCohereReranker(config, model);
}
