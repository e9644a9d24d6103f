import type { LlmProviderName } from "./config.js";

/**
 * One turn of a conversation. Content is plain text for now; tool use will widen it to content
 * blocks.
 */
export interface LlmMessage {
  role: "user" | "assistant";
  content: string;
}

export interface CompletionRequest {
  /** Instructions that frame the conversation. */
  system?: string;
  messages: LlmMessage[];
  /** Upper bound on the tokens of the answer. */
  maxTokens: number;
  /**
   * Sampling temperature, for the OpenAI-compatible providers. Anthropic's Messages API no longer
   * takes sampling parameters, so its client leaves it out.
   */
  temperature?: number;
  /** Aborts the request, e.g. when the HTTP request that needs it is cancelled. */
  signal?: AbortSignal;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

export interface Completion {
  /** The answer's text blocks, joined. */
  text: string;
  usage: TokenUsage;
}

/** A configured provider and model. */
export interface LlmClient {
  readonly provider: LlmProviderName;
  readonly model: string;
  complete(request: CompletionRequest): Promise<Completion>;
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
