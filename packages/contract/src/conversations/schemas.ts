import { z } from "@hono/zod-openapi";
import { lenientBoolQuery, lenientIntQuery, message, pageLimitQuery, TimestampSchema } from "../common.js";

/** A stored message: kept verbatim, whatever else the client records with it. */
export const ConversationMessageSchema = z
  .object({
    role: z.string().openapi({ description: "user, assistant or system" }),
    content: z
      .union([z.string(), z.array(z.record(z.string(), z.unknown()))])
      .openapi({ description: "Text, or Anthropic-style content blocks" }),
    timestamp: z.string().optional(),
    provider: z.string().optional(),
    model: z.string().optional(),
    activity: z.array(z.record(z.string(), z.unknown())).optional(),
    isError: z.boolean().optional(),
    cache_control: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough()
  .openapi("ConversationMessage");

const messages = z
  .array(ConversationMessageSchema, message("Messages required"))
  .openapi({ description: "The whole message list" });

export const ConversationSchema = z
  .object({
    id: z.string().openapi({ example: "conv_1763800000000000000_0123456789abcdef" }),
    username: z.string(),
    title: z.string(),
    provider: z.string().optional(),
    model: z.string().optional(),
    connection: z.string().optional().openapi({ description: "Associated connection name" }),
    messages: z.array(ConversationMessageSchema),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Conversation");

export const ConversationSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    connection: z.string().optional(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
    preview: z.string().openapi({ description: "The first user message, up to 100 characters" }),
  })
  .openapi("ConversationSummary");

export const ConversationListSchema = z
  .object({ conversations: z.array(ConversationSummarySchema) })
  .openapi("ConversationListResponse");

export const ConversationCreateSchema = z
  .object({
    provider: z.string().optional(),
    model: z.string().optional(),
    connection: z.string().optional(),
    messages: messages.min(1, message("Messages required")),
  })
  .openapi("ConversationCreateRequest");

export const ConversationUpdateSchema = z
  .object({
    provider: z.string().optional(),
    model: z.string().optional(),
    connection: z.string().optional(),
    messages: messages.optional(),
  })
  .openapi("ConversationUpdateRequest");

export const ConversationRenameSchema = z
  .object({ title: z.string(message("Title required")).trim().min(1, message("Title required")).max(500) })
  .openapi("ConversationRenameRequest");

export const ConversationIdParamSchema = z.object({
  id: z.string().min(1).openapi({ description: "Conversation ID" }),
});

/** Paging of the conversation listing. */
export const CONVERSATION_PAGING = { defaultSize: 50, cap: 100 };

export const ConversationListQuerySchema = z.object({
  limit: pageLimitQuery(CONVERSATION_PAGING, "Maximum number of results"),
  offset: lenientIntQuery({ description: "Offset for pagination" }),
});

export const DeleteAllConversationsQuerySchema = z.object({
  all: lenientBoolQuery({ description: "Must be true to confirm deletion" }),
});

export const SuccessSchema = z.object({ success: z.literal(true) }).openapi("SuccessResponse");

export const DeleteAllSchema = z
  .object({ success: z.literal(true), deleted: z.number().int() })
  .openapi("DeleteAllResponse");
