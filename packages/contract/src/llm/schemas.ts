import { z } from "@hono/zod-openapi";
import { ErrorSchema, message, TimestampSchema } from "../common.js";
import { eventStreamSchema } from "../event-stream.js";

export const TextBlockSchema = z.object({ type: z.literal("text"), text: z.string() }).openapi("TextBlock");

export const ToolUseBlockSchema = z
  .object({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
  })
  .openapi("ToolUseBlock");

export const ToolResultBlockSchema = z
  .object({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(TextBlockSchema)]),
    is_error: z.boolean().optional(),
  })
  .openapi("ToolResultBlock");

/** Anthropic-style content blocks, whatever the provider. */
export const ContentBlockSchema = z
  .discriminatedUnion("type", [TextBlockSchema, ToolUseBlockSchema, ToolResultBlockSchema])
  .openapi("ContentBlock");

export const ChatMessageSchema = z
  .object({
    role: z.enum(["user", "assistant", "system"]),
    content: z.union([z.string(), z.array(ContentBlockSchema)]),
    cache_control: z.record(z.string(), z.unknown()).optional(),
    timestamp: z.string().optional().openapi({ description: "Kept by clients; not sent to the provider" }),
    provider: z.string().optional().openapi({ description: "Kept by clients; not sent to the provider" }),
    model: z.string().optional().openapi({ description: "Kept by clients; not sent to the provider" }),
  })
  .openapi("ChatMessage");

export const ChatToolSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().default(""),
    inputSchema: z
      .record(z.string(), z.unknown())
      .default({ type: "object" })
      .openapi({ description: "JSON schema of the tool's arguments" }),
  })
  .openapi("ChatTool");

export const ChatRequestSchema = z
  .object({
    messages: z.array(ChatMessageSchema).min(1),
    tools: z.array(ChatToolSchema).default([]),
    system: z.string().optional().openapi({ description: "System prompt; a built-in one when empty" }),
    provider: z.string().optional().openapi({ description: "Override the default provider" }),
    model: z.string().optional().openapi({ description: "Override the default model" }),
    debug: z.boolean().optional().openapi({ description: "Report token usage" }),
  })
  .openapi("ChatRequest");

export const TokenUsageSchema = z
  .object({
    provider: z.string(),
    input_tokens: z.number().int().openapi({ description: "Same as prompt_tokens" }),
    output_tokens: z.number().int().openapi({ description: "Same as completion_tokens" }),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    total_tokens: z.number().int(),
    cache_creation_tokens: z.number().int(),
    cache_read_tokens: z.number().int(),
    cache_savings_percentage: z.number(),
  })
  .openapi("TokenUsage");

export const ChatResponseSchema = z
  .object({
    content: z.array(z.discriminatedUnion("type", [TextBlockSchema, ToolUseBlockSchema])),
    stop_reason: z.string().openapi({ example: "end_turn" }),
    token_usage: TokenUsageSchema.optional().openapi({ description: "Only when `debug` is set" }),
  })
  .openapi("ChatResponse");

export const ProvidersResponseSchema = z
  .object({
    providers: z.array(
      z
        .object({
          name: z.string().openapi({ example: "anthropic" }),
          display: z.string().openapi({ example: "Anthropic Claude" }),
          isDefault: z.boolean(),
        })
        .openapi("ProviderInfo"),
    ),
    defaultModel: z.string().openapi({ description: "Default chat model; empty when chat is off" }),
  })
  .openapi("ProvidersResponse");

export const ModelsQuerySchema = z.object({
  provider: z
    .string(message("Provider parameter is required"))
    .min(1, message("Provider parameter is required"))
    .openapi({ description: "Provider name (anthropic, openai, gemini, ollama)" }),
});

export const ModelsResponseSchema = z
  .object({
    models: z.array(z.object({ name: z.string(), description: z.string().optional() }).openapi("ModelInfo")),
  })
  .openapi("ModelsResponse");

export const LlmHealthSchema = z
  .object({
    status: z.enum(["ok", "degraded", "unconfigured"]),
    providers: z.array(
      z
        .object({
          name: z.string(),
          configured: z.boolean(),
          reachable: z.boolean(),
          latency_ms: z.number().int().nullable(),
          error: z.string().optional(),
        })
        .openapi("LLMProviderHealth"),
    ),
    checked_at: TimestampSchema,
  })
  .openapi("LLMHealthResponse");

const InputTypeSchema = z
  .enum(["query", "document"])
  .optional()
  .openapi({ description: "What the input is for, where the provider distinguishes" });

export const EmbedRequestSchema = z
  .object({
    input: z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(1000)]),
    model: z.string().optional(),
    provider: z.string().optional(),
    input_type: InputTypeSchema,
  })
  .openapi("EmbedRequest");

export const EmbeddingsResponseSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    embeddings: z.array(z.array(z.number())),
    usage: z.object({ total_tokens: z.number().int() }),
  })
  .openapi("EmbeddingsResponse");

export const MultimodalContentSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("text"), text: z.string().min(1) }),
    z.object({ type: z.literal("image_url"), image_url: z.string().url() }),
    z.object({ type: z.literal("image_base64"), image_base64: z.string().min(1) }),
  ])
  .openapi("MultimodalContent");

export const MultimodalEmbedRequestSchema = z
  .object({
    inputs: z
      .array(z.object({ content: z.array(MultimodalContentSchema).min(1) }))
      .min(1)
      .max(1000),
    model: z.string().optional(),
    input_type: InputTypeSchema,
  })
  .openapi("MultimodalEmbedRequest");

export const RerankRequestSchema = z
  .object({
    query: z.string().min(1),
    documents: z.array(z.string()).min(1).max(1000),
    top_k: z.number().int().positive().optional(),
    model: z.string().optional(),
    return_documents: z.boolean().optional(),
  })
  .openapi("RerankRequest");

export const RerankResponseSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    results: z.array(
      z.object({ index: z.number().int(), relevance_score: z.number(), document: z.string().optional() }),
    ),
    usage: z.object({
      total_tokens: z.number().int().optional(),
      search_units: z.number().int().optional(),
    }),
  })
  .openapi("RerankResponse");

/** The events of POST /api/v1/llm/chat/stream: deltas and tool calls as the provider streams, then `done` or `error`. */
export const chatStreamEvents = {
  delta: z.object({ text: z.string() }).openapi("ChatStreamDelta", { description: "The next piece of text" }),
  tool_use: z
    .object({ id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) })
    .openapi("ChatStreamToolUse", { description: "A tool call of the model, complete" }),
  done: z
    .object({
      stop_reason: z.string().openapi({ example: "end_turn" }),
      token_usage: TokenUsageSchema.optional().openapi({ description: "Only when `debug` is set" }),
    })
    .openapi("ChatStreamDone", { description: "The answer is complete; the last event" }),
  // The answer failed after it started; the last event.
  error: ErrorSchema,
} as const;

/** One event of the chat stream, for the document and the client's types. */
export const ChatStreamSchema = eventStreamSchema(
  "ChatStreamEvent",
  "One event of the chat stream: `delta` {text}, `tool_use` {id, name, input}, then `done` {stop_reason, token_usage?} or `error` {error}.",
  chatStreamEvents,
);
