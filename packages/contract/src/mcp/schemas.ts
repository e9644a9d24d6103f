import { z } from "@hono/zod-openapi";
import { message } from "../common.js";

export const McpToolSchema = z
  .object({
    name: z.string(),
    description: z.string().openapi({ description: "What the tool returns and when to use it, for LLMs" }),
    compactDescription: z
      .string()
      .optional()
      .openapi({ description: "A one-line description for small models" }),
    inputSchema: z
      .object({
        type: z.literal("object"),
        properties: z.record(z.string(), z.unknown()),
        required: z.array(z.string()).optional(),
      })
      .passthrough()
      .openapi({ description: "JSON Schema of the tool's arguments" }),
  })
  .openapi("MCPTool");

export const McpToolListSchema = z.object({ tools: z.array(McpToolSchema) }).openapi("MCPToolListResponse");

export const McpToolCallRequestSchema = z
  .object({
    name: z
      .string(message("Tool name is required"))
      .min(1, message("Tool name is required"))
      .openapi({ description: "Tool name to execute" }),
    arguments: z
      .record(z.string(), z.unknown(), message("Invalid request body"))
      .optional()
      .openapi({ description: "Tool arguments" }),
  })
  .openapi("MCPToolCallRequest");

export const McpContentSchema = z
  .object({ type: z.string(), text: z.string().optional() })
  .passthrough()
  .openapi("MCPContent");

export const McpToolCallResponseSchema = z
  .object({
    content: z.array(McpContentSchema).openapi({ description: "Tool response content" }),
    isError: z.boolean().optional().openapi({ description: "The tool refused or failed" }),
  })
  .openapi("MCPToolCallResponse");
