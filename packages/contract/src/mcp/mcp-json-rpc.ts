import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { JsonRpcRequestSchema, JsonRpcResponseSchema } from "./schemas.js";

export const mcpJsonRpc = defineOperation({
  method: "post",
  path: "/mcp/v1",
  operationId: "mcpJsonRpc",
  summary: "MCP server (Streamable HTTP, JSON-RPC 2.0)",
  description:
    "The MCP endpoint, for MCP clients (the SDKs, the MCP Inspector, Claude Desktop through mcp-remote): the Streamable HTTP transport of `@modelcontextprotocol/sdk`, stateless (no session id), every answer one `application/json` body. A JSON-RPC request (or a batch) gets its JSON-RPC response with HTTP 200, outcomes of the method included (`error` -32601 for an unknown method); a notification gets 202 without a body. `tools/list` lists what the caller may use, exactly as `GET /api/v1/mcp/tools`; `tools/call` runs a tool as `POST /api/v1/mcp/tools/call` does, a refusal being a result with `isError`. GET and DELETE are answered 405 (no stream, no session). The credential is `Authorization: Bearer <token>` only: a request authenticated by the session cookie is answered 401. docs/mcp.md shows how to connect a client.",
  tag: "mcp",
  access: {
    note: "Each tool call and resource read checks the caller's MCP privileges, the token's scope and, for tools bound to a connection, access to it.",
  },
  request: {
    body: jsonBody(
      z.union([JsonRpcRequestSchema, z.array(JsonRpcRequestSchema).min(1)]),
      "A JSON-RPC 2.0 request or batch",
    ),
  },
  responses: {
    200: jsonResponse(
      z.union([JsonRpcResponseSchema, z.array(JsonRpcResponseSchema)]),
      "The JSON-RPC response (or the responses of a batch)",
    ),
    202: { description: "Notifications only: accepted, no body" },
  },
  errors: [400, 413, 415],
});
