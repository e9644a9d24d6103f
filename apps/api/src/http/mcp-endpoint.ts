import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Context } from "hono";
import { presentedCredential } from "../auth/access.js";
import { NotAuthenticated } from "../errors.js";
import { createMcpServer } from "../mcp/server.js";
import type { AppEnv } from "../services.js";
import type { App } from "./app-type.js";
import { refuseMethod } from "./method-not-allowed.js";

export const MCP_PATH = "/mcp/v1";

/** Every answer is one JSON body (`enableJsonResponse`), so a client that accepts JSON is enough. */
const ACCEPTED = "application/json, text/event-stream";

/**
 * Answers a POST to `/mcp/v1` (the contract's `mcpJsonRpc`) with the MCP Streamable HTTP transport
 * of the SDK, stateless (a server and a transport per request, no session id), so any process of a
 * deployment answers any request. The guard has authenticated the caller before.
 */
export async function answerMcpRequest(c: Context<AppEnv>): Promise<Response> {
  const access = c.get("access");
  await requireBearerCaller(c);
  const server = createMcpServer(c.get("services"), access);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    // The body was read (and checked for size and NUL) by the middleware; the transport gets a
    // fresh request over the same text. Plain JSON-RPC clients need not list text/event-stream.
    const headers = new Headers(c.req.raw.headers);
    if (!headers.get("accept")?.includes("text/event-stream")) {
      headers.set("accept", ACCEPTED);
    }
    const request = new Request(c.req.raw.url, {
      method: "POST",
      headers,
      body: await c.req.text(),
      signal: c.req.raw.signal,
    });
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}

export const MCP_BEARER_ONLY =
  "The MCP endpoint takes Authorization: Bearer <token> only; the session cookie is not accepted";

/**
 * MCP clients send a token in the Authorization header (docs/mcp.md). The session cookie is not a
 * credential here: a browser would attach it to a request another page makes it send, and no MCP
 * client needs it, so the endpoint does not widen what a cross-site request can reach.
 */
async function requireBearerCaller(c: Context<AppEnv>): Promise<void> {
  const credential = presentedCredential(c);
  if (credential.kind === "token" && credential.source === "cookie") {
    throw new NotAuthenticated(MCP_BEARER_ONLY);
  }
  await c.get("access").requireCaller();
}

/**
 * Stateless, the endpoint offers no server-to-client SSE stream (GET) and no session to end
 * (DELETE): the transport specification has both answered 405, which its clients expect.
 */
export function registerMcpEndpoint(app: App): void {
  app.on(["GET", "DELETE"], MCP_PATH, async (c) => {
    await requireBearerCaller(c);
    refuseMethod(["POST"]);
  });
}
