import { z } from "@hono/zod-openapi";

export const HealthSchema = z
  .object({
    status: z.literal("ok"),
    server: z.literal("dbmon"),
    version: z.string().openapi({ example: "0.1.0" }),
  })
  .openapi("Health");

export const HealthUnavailableSchema = z
  .object({
    status: z.literal("unavailable"),
    server: z.literal("dbmon"),
    version: z.string(),
    error: z.string().openapi({ example: "The datastore is unreachable" }),
  })
  .openapi("HealthUnavailable");

/** The OpenAPI document is free-form JSON from the contract's point of view. */
export const OpenApiDocumentSchema = z
  .object({ openapi: z.string(), info: z.object({}).passthrough(), paths: z.object({}).passthrough() })
  .passthrough()
  .openapi("OpenApiDocument");

/** A message of POST /api/v1/chat/compact; kept as sent, whatever else it carries. */
export const CompactMessageSchema = z
  .object({
    role: z.string(),
    content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
    cache_control: z.record(z.string(), z.unknown()).optional(),
    timestamp: z.string().optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
  })
  .passthrough()
  .openapi("CompactMessage");

export const CompactRequestSchema = z
  .object({
    messages: z.array(CompactMessageSchema),
    max_tokens: z.number().int().positive().default(100_000).openapi({ description: "Token budget" }),
    recent_window: z
      .number()
      .int()
      .min(0)
      .default(10)
      .openapi({ description: "Number of recent messages always kept" }),
    keep_anchors: z.boolean().default(true).openapi({ description: "Keep the first message" }),
    options: z
      .object({
        preserve_tool_results: z.boolean().default(true),
        preserve_schema_info: z.boolean().default(true),
        enable_summarization: z.boolean().default(true),
        min_important_messages: z.number().int().min(0).default(3),
        token_counter_type: z.enum(["generic", "openai", "anthropic", "ollama"]).default("generic"),
        enable_llm_summarization: z.boolean().default(false),
        enable_caching: z.boolean().optional(),
        cache_ttl: z.number().optional(),
        enable_analytics: z.boolean().optional(),
      })
      .default({
        preserve_tool_results: true,
        preserve_schema_info: true,
        enable_summarization: true,
        min_important_messages: 3,
        token_counter_type: "generic",
        enable_llm_summarization: false,
      })
      .openapi({ description: "Advanced compaction options" }),
  })
  .openapi("CompactRequest");

export const CompactResponseSchema = z
  .object({
    messages: z.array(CompactMessageSchema),
    summary: z
      .object({
        topics: z.array(z.string()),
        tables: z.array(z.string()),
        tools: z.array(z.string()),
        description: z.string(),
        time_range: z.object({ start: z.string(), end: z.string() }).optional(),
      })
      .optional()
      .openapi({ description: "What the dropped messages were about" }),
    token_estimate: z.number().int().openapi({ description: "Estimated tokens of the answer's messages" }),
    compaction_info: z.object({
      original_count: z.number().int(),
      compacted_count: z.number().int(),
      dropped_count: z.number().int(),
      anchor_count: z.number().int(),
      tokens_saved: z.number().int(),
      compression_ratio: z.number(),
    }),
  })
  .openapi("CompactResponse");
