import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
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

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await services.mcpTools.list(access)).map(({ name, description, inputSchema }) => ({
      name,
      description,
      inputSchema,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    answered(services, () =>
      services.mcpTools.call(
        { access, services, signal: extra.signal },
        request.params.name,
        request.params.arguments ?? {},
      ),
    ),
  );

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: resources.map(({ uri, name, description, mimeType }) => ({
      uri,
      name,
      description,
      mimeType,
    })),
  }));

  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    answered(services, async () => ({
      contents: [await readResource({ access, services, signal: extra.signal }, request.params.uri)],
    })),
  );

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [] }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    throw new JsonRpcError(ErrorCode.InvalidParams, `Prompt not found: ${request.params.name}`);
  });

  return server;
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
