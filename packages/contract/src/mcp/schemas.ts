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

const JsonRpcIdSchema = z.union([z.string(), z.number().int()]);

export const JsonRpcRequestSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: JsonRpcIdSchema.optional().openapi({ description: "Absent in a notification, which gets no answer" }),
    method: z.string().min(1).openapi({
      description:
        "initialize, notifications/initialized, ping, tools/list, tools/call, resources/list, resources/read or prompts/list",
      example: "tools/list",
    }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .passthrough()
  .openapi("JSONRPCRequest");

export const JsonRpcResponseSchema = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: JsonRpcIdSchema.nullable().optional(),
    result: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "The method's result (tools/call: content and isError, as the REST bridge)" }),
    error: z
      .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
      .optional()
      .openapi({ description: "-32601 Method not found, -32602 Invalid params, -32603 Internal error" }),
  })
  .openapi("JSONRPCResponse");
