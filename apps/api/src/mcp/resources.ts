import { InvalidInput, NotFound } from "../errors.js";
import { rowIdArgument } from "./arguments.js";
import { type BoundConnection, boundConnection } from "./connection.js";
import type { ToolContext } from "./tool.js";

/**
 * An MCP resource of dbmon: read-only JSON about a connection, the one `?connection_id=N` names or
 * else the caller's selected connection.
 */
export interface McpResource {
  uri: string;
  name: string;
  description: string;
  mimeType: "application/json";
  read(context: ToolContext, connectionId: number | undefined): Promise<unknown>;
}

/** How a resource's reader names a connection, for the message when none is selected. */
const NAMING = "add ?connection_id=N to the resource URI";

const bound = (context: ToolContext, connectionId: number | undefined): Promise<BoundConnection> =>
  boundConnection(context, { connection_id: connectionId }, "read", NAMING);

/** What both resources say of the connection they describe. */
function describeConnection({ row, databaseName }: BoundConnection) {
  return {
    id: row.id,
    name: row.name,
    host: row.host,
    port: row.port,
    database: databaseName ?? row.databaseName,
  };
}

export const resources: readonly McpResource[] = [
  {
    uri: "pg://system_info",
    name: "PostgreSQL system information",
    description:
      "PostgreSQL version, operating system, architecture and connection details of a connection (pg://system_info?connection_id=N, else the selected connection), as dbmon last collected them",
    mimeType: "application/json",
    async read(context, connectionId) {
      const connection = await bound(context, connectionId);
      const info = await context.services.serverInfo.read(connection.row.id);
      return {
        connection: describeConnection(connection),
        server: info ?? "Nothing collected from this connection yet",
      };
    },
  },
  {
    uri: "pg://connection_info",
    name: "Selected connection",
    description:
      "A connection's id, name, host, port and database (pg://connection_info?connection_id=N, else the selected connection)",
    mimeType: "application/json",
    async read(context, connectionId) {
      return describeConnection(await bound(context, connectionId));
    },
  },
];

export interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

/**
 * A resource's content for the caller, for the connection the URI's `?connection_id=N` names (or
 * `connectionArgument`, the read_resource tool's), else the selected one. A caller without the resource's MCP privilege, or a failure
 * to read it, gets an explanation as the content, as the reference answers.
 */
export async function readResource(
  context: ToolContext,
  uri: string,
  connectionArgument?: number,
): Promise<ResourceContent> {
  const [base = "", query] = splitOnce(uri, "?");
  const resource = resources.find((candidate) => candidate.uri === base);
  if (!resource) {
    throw new NotFound(`Resource not found: ${uri}`);
  }
  const inUri = connectionParameter(uri, query);
  if (inUri !== undefined && connectionArgument !== undefined && inUri !== connectionArgument) {
    throw new InvalidInput(
      "The URI's connection_id and the connection_id argument name different connections",
    );
  }
  const connectionId = inUri ?? connectionArgument;
  if (!(await context.access.mayUseMcp(resource.uri))) {
    return {
      uri,
      mimeType: "text/plain",
      text: `Access denied: you do not have permission to read resource '${resource.uri}'`,
    };
  }
  return {
    uri,
    mimeType: resource.mimeType,
    text: JSON.stringify(await resource.read(context, connectionId), null, 2),
  };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** The URI's `connection_id`; any other parameter is refused, so a misspelt one never reads another connection. */
function connectionParameter(uri: string, query: string | undefined): number | undefined {
  if (query === undefined || query === "") {
    return undefined;
  }
  const parameters = new URLSearchParams(query);
  const unknown = [...new Set(parameters.keys())].filter((key) => key !== "connection_id");
  if (unknown.length > 0) {
    throw new InvalidInput(
      `Unknown parameter of ${uri.split("?")[0]}: ${unknown[0]?.slice(0, 64)} (only connection_id)`,
    );
  }
  const values = parameters.getAll("connection_id");
  const value =
    values.length === 1 && /^[0-9]{1,10}$/.test(values[0] as string) ? Number(values[0]) : Number.NaN;
  const parsed = rowIdArgument.safeParse(value);
  if (!parsed.success) {
    throw new InvalidInput("connection_id must be one positive integer");
  }
  return parsed.data;
}
