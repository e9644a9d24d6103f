import { z } from "@hono/zod-openapi";
import { idParam, message, pageLimitQuery, TimestampSchema } from "../common.js";

export const MemoryScopeSchema = z.enum(["user", "system"]).openapi("MemoryScope");

export const MemorySchema = z
  .object({
    id: z.number().int(),
    username: z.string().openapi({ description: "Who stored the memory" }),
    scope: MemoryScopeSchema.openapi({
      description: "user: its owner's alone; system: read by every user",
    }),
    category: z.string(),
    content: z.string(),
    pinned: z.boolean().openapi({ description: "Pinned memories are part of every chat's system prompt" }),
    model_name: z.string().openapi({
      description: "The embedding model the memory was stored with; empty when it was stored without one",
    }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Memory");

export const MemoryListSchema = z.object({ memories: z.array(MemorySchema) }).openapi("MemoryListResponse");

/** How many memories one listing holds. */
export const MEMORY_PAGING = { defaultSize: 100, cap: 1000 };

export const MemoryListQuerySchema = z.object({
  category: z.string().optional().openapi({ description: "Only memories of this category" }),
  limit: pageLimitQuery(MEMORY_PAGING, "Maximum number of memories"),
});

export const MemoryIdParamsSchema = z.object({ id: idParam("Invalid memory ID") });

export const MemoryPinSchema = z
  .object({ pinned: z.boolean(message("pinned must be true or false")) })
  .openapi("MemoryPinRequest");

export const MemoryPinnedSchema = z
  .object({ id: z.number().int(), pinned: z.boolean() })
  .openapi("MemoryPinResponse");

export const MemoryDeletedSchema = z
  .object({ status: z.literal("deleted") })
  .openapi("MemoryDeletedResponse");
