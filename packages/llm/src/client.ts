import type {
  ChatProviderName,
  EmbedProviderName,
  LlmProviderName,
  MultimodalProviderName,
  RerankProviderName,
} from "./config.js";

/** Anthropic-style content blocks: the one shape of messages, whatever the provider. */
export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  /** Text, or text blocks. */
  content: string | TextBlock[];
  is_error?: boolean;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

/** One turn of a conversation. */
export interface LlmMessage {
  role: "user" | "assistant";
  content: string | ContentBlock[];
}

/** A tool the model may call; `inputSchema` is a JSON schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface CompletionRequest {
  /** Instructions that frame the conversation. */
  system?: string;
  messages: LlmMessage[];
  tools?: ToolDefinition[];
  /** Upper bound on the tokens of the answer. */
  maxTokens: number;
  /**
   * Sampling temperature, for the OpenAI-compatible providers and Ollama. Anthropic's Messages API
   * no longer takes sampling parameters, so its client leaves it out.
   */
  temperature?: number;
  /** Aborts the request, e.g. when the HTTP request that needs it is cancelled. */
  signal?: AbortSignal;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens written to or read from the provider's prompt cache, where it reports them. */
  cacheCreationTokens?: number;
  cacheReadTokens?: number;
}

/**
 * Why the model stopped, in Anthropic's words: `end_turn`, `tool_use`, `max_tokens`,
 * `stop_sequence`, or the provider's own reason when it has no equivalent.
 */
export type StopReason = string;

export interface ChatAnswer {
  content: (TextBlock | ToolUseBlock)[];
  stopReason: StopReason;
  usage: TokenUsage;
}

export interface Completion {
  /** The answer's text blocks, joined. */
  text: string;
  usage: TokenUsage;
}

/** What a streamed answer yields, in order: text and tool calls as they come, then `done`. */
export type ChatStreamEvent =
  | { type: "delta"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "done"; stopReason: StopReason; usage: TokenUsage };

/** A configured chat provider and model. */
export interface LlmClient {
  readonly provider: ChatProviderName;
  readonly model: string;
  /** One round trip; the answer's text only. */
  complete(request: CompletionRequest): Promise<Completion>;
  /** One round trip; the answer as content blocks. */
  chat(request: CompletionRequest): Promise<ChatAnswer>;
  /** The answer as the provider streams it. Breaking out of the loop aborts the request. */
  stream(request: CompletionRequest): AsyncIterable<ChatStreamEvent>;
}

export interface Embeddings {
  model: string;
  embeddings: number[][];
  totalTokens: number;
}

export type EmbedInputType = "query" | "document";

export interface Embedder {
  readonly provider: EmbedProviderName;
  readonly model: string;
  embed(request: {
    input: string[];
    model?: string;
    inputType?: EmbedInputType;
    signal?: AbortSignal;
  }): Promise<Embeddings>;
}

export type MultimodalContent =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: string }
  | { type: "image_base64"; image_base64: string };

export interface MultimodalEmbedder {
  readonly provider: MultimodalProviderName;
  readonly model: string;
  embed(request: {
    inputs: { content: MultimodalContent[] }[];
    model?: string;
    inputType?: EmbedInputType;
    signal?: AbortSignal;
  }): Promise<Embeddings>;
}

export interface RerankResult {
  index: number;
  relevanceScore: number;
}

export interface Reranking {
  model: string;
  results: RerankResult[];
  /** Tokens (Voyage) or search units (Cohere) billed. */
  usage: { totalTokens?: number; searchUnits?: number };
}

export interface Reranker {
  readonly provider: RerankProviderName;
  readonly model: string;
  rerank(request: {
    query: string;
    documents: string[];
    topK?: number;
    model?: string;
    signal?: AbortSignal;
  }): Promise<Reranking>;
}

/**
 * A failed provider call. The message says what went wrong without the API key or the provider's
 * address.
 */
export class LlmError extends Error {
  override name = "LlmError";

  constructor(
    message: string,
    readonly provider: LlmProviderName,
    /** The provider's HTTP status, when it answered. */
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** The text blocks of an answer, joined. */
export function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}
