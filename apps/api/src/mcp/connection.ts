import type { AccessLevel } from "../auth/model.js";
import type { ConnectionRow } from "../connections/store.js";
import { Forbidden, NotFound } from "../errors.js";
import type { ToolContext } from "./tool.js";

export interface BoundConnection {
  row: ConnectionRow;
  /** The database to use: the argument, else the selection's, else the connection's own. */
  databaseName: string | undefined;
}

/**
 * The connection a tool acts on: `connection_id`, or the connection the caller's credential
 * selected (POST /connections/current). The caller needs at least `level` access to it.
 * `naming` says how the caller names a connection, for the message when none is selected.
 */
export async function boundConnection(
  context: ToolContext,
  args: { connection_id?: number | undefined; database_name?: string | undefined },
  level: AccessLevel = "read",
  naming = "pass connection_id",
): Promise<BoundConnection> {
  const { access, services } = context;
  let connectionId = args.connection_id;
  let databaseName = args.database_name;
  if (connectionId === undefined) {
    const current = await services.connections.current(access).catch((error: unknown) => {
      if (error instanceof NotFound) {
        throw new NotFound(
          `No connection selected: ${naming}, or select a connection first (POST /api/v1/connections/current)`,
        );
      }
      throw error;
    });
    connectionId = current.connection_id;
    databaseName ??= current.database_name ?? undefined;
  }
  const row = await services.connections.get(connectionId);
  if (!row) {
    throw new NotFound(`Connection ${connectionId} not found`);
  }
  const granted = await access.connectionLevel(connectionId);
  if (!granted) {
    throw new Forbidden(`Access denied: you do not have access to connection ${connectionId}`);
  }
  if (level === "read_write" && granted !== "read_write") {
    throw new Forbidden(`Access denied: you do not have write access to connection ${connectionId}`);
  }
  return { row, databaseName };
}
