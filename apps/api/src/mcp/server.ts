import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  type InitializeRequest,
  InitializeRequestSchema,
  type InitializeResult,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type Result,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RequestAccess } from "../auth/access.js";
import { DomainError } from "../errors.js";
import type { Services } from "../services.js";
import { version } from "../version.js";
import { readResource, resources } from "./resources.js";

/**
 * An MCP server for one caller, on the SDK's low-level `Server` (the tool list is the caller's, so
 * it cannot be registered once with `McpServer`). Tools go through the same `ToolCatalogue` as the
 * REST bridge, so tools/list is filtered and tools/call checked the same way (D16); a refusal is an
 * `isError` result. `resources/list` lists both resources, and reading one checks its privilege
 * (the content then says access was denied), as the reference does. No prompts.
 */
export function createMcpServer(services: Services, access: RequestAccess): Server {
  const server = new Server(
    { name: "dbmon", version },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );

  const onRequest = requestHandlerOn(server);
  // The SDK's own initialize handler, behind the same validation (its method is private in the
  // SDK's types; the SDK version is pinned and mcp-server.test.ts initializes through it).
  const sdk = server as unknown as { _oninitialize(request: InitializeRequest): Promise<InitializeResult> };
  onRequest(InitializeRequestSchema, (request) => sdk._oninitialize(request));

  onRequest(ListToolsRequestSchema, async () => ({
    tools: (await services.mcpTools.list(access)).map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    })),
  }));

  onRequest(CallToolRequestSchema, (request, extra) =>
    answered(services, () =>
      services.mcpTools.call(
        { access, services, signal: extra.signal },
        request.params.name,
        request.params.arguments ?? {},
      ),
    ),
  );

  onRequest(ListResourcesRequestSchema, async () => ({
    resources: resources.map(({ uri, name, description, mimeType }) => ({
      uri,
      name,
      description,
      mimeType,
    })),
  }));

  onRequest(ReadResourceRequestSchema, (request, extra) =>
    answered(services, async () => ({
      contents: [await readResource({ access, services, signal: extra.signal }, request.params.uri)],
    })),
  );

  onRequest(ListPromptsRequestSchema, async () => ({ prompts: [] }));
  onRequest(GetPromptRequestSchema, async (request) => {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Prompt not found: ${request.params.name}`);
  });

  return server;
}

/**
 * Registers a request handler that validates its own request: the SDK parses a request against the
 * handler's schema before calling it and answers a failure as an internal error (-32603) with the
 * validation's dump, where a malformed request is the caller's mistake (invalid params, -32602).
 * So the SDK is given a schema that takes any params of the method, and the real one runs here.
 */
function requestHandlerOn(server: Server) {
  return <S extends z.ZodObject<{ method: z.ZodLiteral<string> }>, R extends Result>(
    schema: S,
    handler: (
      request: z.output<S>,
      extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    ) => Promise<R>,
  ): void => {
    const method = schema.shape.method.value;
    server.setRequestHandler(z.object({ method: z.literal(method) }).loose(), (request, extra) => {
      const parsed = schema.safeParse(request);
      if (!parsed.success) {
        const [issue] = parsed.error.issues;
        const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
        throw new JsonRpcError(
          ErrorCode.InvalidParams,
          `Invalid params of ${method}${where}: ${issue?.message ?? "malformed"}`,
        );
      }
      return handler(parsed.data, extra);
    });
  };
}

/**
 * Domain refusals become JSON-RPC errors with their own message (an unknown resource is the
 * caller's mistake: invalid params); anything unexpected is logged and answered without detail.
 */
async function answered<T>(services: Services, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError) {
      const code =
        error.kind === "not_found" || error.kind === "invalid"
          ? ErrorCode.InvalidParams
          : ErrorCode.InternalError;
      throw new JsonRpcError(code, error.message);
    }
    services.logger.error(
      { err: error instanceof Error ? error.message : String(error) },
      "MCP request failed",
    );
    throw new JsonRpcError(ErrorCode.InternalError, "Internal error");
  }
}

/**
 * A JSON-RPC error the SDK answers with as it is: its `code` and message (the SDK's `McpError`
 * would prefix "MCP error <code>:" to the message on the wire).
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
