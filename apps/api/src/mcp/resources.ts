import { NotFound } from "../errors.js";
import { boundConnection } from "./connection.js";
import type { ToolContext } from "./tool.js";

/** An MCP resource of dbmon: read-only JSON about the caller's selected connection. */
export interface McpResource {
  uri: string;
  name: string;
  description: string;
  mimeType: "application/json";
  read(context: ToolContext): Promise<unknown>;
}

export const resources: readonly McpResource[] = [
  {
    uri: "pg://system_info",
    name: "PostgreSQL system information",
    description:
      "PostgreSQL version, operating system, architecture and connection details of the selected connection, as dbmon last collected them",
    mimeType: "application/json",
    async read(context) {
      const { row, databaseName } = await boundConnection(context, {});
      const info = await context.services.serverInfo.read(row.id);
      return {
        connection: {
          id: row.id,
          name: row.name,
          host: row.host,
          port: row.port,
          database: databaseName ?? row.databaseName,
        },
        server: info ?? "Nothing collected from this connection yet",
      };
    },
  },
  {
    uri: "pg://connection_info",
    name: "Selected connection",
    description: "The connection selected in dbmon: id, name, host, port and database",
    mimeType: "application/json",
    async read(context) {
      const { row, databaseName } = await boundConnection(context, {});
      return {
        id: row.id,
        name: row.name,
        host: row.host,
        port: row.port,
        database: databaseName ?? row.databaseName,
      };
    },
  },
];

export interface ResourceContent {
  uri: string;
  mimeType: string;
  text: string;
}

/**
 * A resource's content for the caller. A caller without the resource's MCP privilege, or a failure
 * to read it, gets an explanation as the content, as the reference answers.
 */
export async function readResource(context: ToolContext, uri: string): Promise<ResourceContent> {
  const resource = resources.find((candidate) => candidate.uri === uri);
  if (!resource) {
    throw new NotFound(`Resource not found: ${uri}`);
  }
  if (!(await context.access.mayUseMcp(uri))) {
    return {
      uri,
      mimeType: "text/plain",
      text: `Access denied: you do not have permission to read resource '${uri}'`,
    };
  }
  return { uri, mimeType: resource.mimeType, text: JSON.stringify(await resource.read(context), null, 2) };
}
