import { createHash } from "node:crypto";
import { serverTarget } from "@dbmon/collector";
import { type Datastore, encryptSecret, type SecretKey, schema } from "@dbmon/datastore";
import { asc, eq, inArray } from "drizzle-orm";
import type postgres from "postgres";

const { connections, connectionSelections } = schema;

export type ConnectionRow = typeof connections.$inferSelect;

/** Fields a caller may set; the password arrives in clear text and is stored encrypted. */
export interface ConnectionInput {
  name?: string | undefined;
  description?: string | undefined;
  host?: string | undefined;
  hostaddr?: string | undefined;
  port?: number | undefined;
  database_name?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  ssl_mode?: string | undefined;
  ssl_cert_path?: string | undefined;
  ssl_key_path?: string | undefined;
  ssl_root_cert_path?: string | undefined;
  is_shared?: boolean | undefined;
  is_monitored?: boolean | undefined;
}

/** The connection as the API shows it: never the password, the owner's token or local flags. */
export function presentConnection(row: ConnectionRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? "",
    host: row.host,
    hostaddr: row.hostaddr,
    port: row.port,
    database_name: row.databaseName,
    username: row.username,
    ssl_mode: row.sslmode as "disable" | "allow" | "prefer" | "require" | "verify-ca" | "verify-full",
    ssl_cert_path: row.sslcert,
    ssl_key_path: row.sslkey,
    ssl_root_cert_path: row.sslrootcert,
    is_monitored: row.isMonitored,
    is_shared: row.isShared,
    owner_username: row.ownerUsername,
    cluster_id: row.clusterId,
    membership_source: row.membershipSource as "auto" | "manual",
    connection_error: row.connectionError,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

function columnsOf(input: ConnectionInput, key: SecretKey) {
  const defined = <T>(value: T | undefined) => value;
  return Object.fromEntries(
    Object.entries({
      name: defined(input.name),
      description: defined(input.description),
      host: defined(input.host),
      hostaddr: defined(input.hostaddr),
      port: defined(input.port),
      databaseName: defined(input.database_name),
      username: defined(input.username),
      passwordEncrypted: input.password === undefined ? undefined : encryptSecret(key, input.password),
      sslmode: defined(input.ssl_mode),
      sslcert: defined(input.ssl_cert_path),
      sslkey: defined(input.ssl_key_path),
      sslrootcert: defined(input.ssl_root_cert_path),
      isShared: defined(input.is_shared),
      isMonitored: defined(input.is_monitored),
    }).filter(([, value]) => value !== undefined),
  ) as Partial<typeof connections.$inferInsert>;
}

/** SHA-256 of a raw token: how a credential's selection is keyed without storing the token. */
export function credentialHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export class ConnectionStore {
  constructor(
    private readonly datastore: Datastore,
    private readonly key: SecretKey,
  ) {}

  /** Connections ordered by name: all of them, or those with the given ids. */
  list(ids: number[] | "all"): Promise<ConnectionRow[]> {
    const query = this.datastore.db.select().from(connections);
    const filtered = ids === "all" ? query : query.where(inArray(connections.id, ids.length ? ids : [-1]));
    return filtered.orderBy(asc(connections.name), asc(connections.id));
  }

  async get(id: number): Promise<ConnectionRow | undefined> {
    const [row] = await this.datastore.db.select().from(connections).where(eq(connections.id, id));
    return row;
  }

  async create(
    input: ConnectionInput & {
      name: string;
      host: string;
      port: number;
      database_name: string;
      username: string;
    },
    ownerUsername: string | null,
    flags: { isLocal?: boolean } = {},
  ): Promise<ConnectionRow> {
    const [row] = await this.datastore.db
      .insert(connections)
      .values({ ...(columnsOf(input, this.key) as typeof connections.$inferInsert), ownerUsername, ...flags })
      .returning();
    return row as ConnectionRow;
  }

  /** Applies a partial change; a changed connection starts over without a recorded error. */
  async update(id: number, input: ConnectionInput): Promise<ConnectionRow | undefined> {
    const [row] = await this.datastore.db
      .update(connections)
      .set({ ...columnsOf(input, this.key), connectionError: null, updatedAt: new Date() })
      .where(eq(connections.id, id))
      .returning();
    return row;
  }

  async delete(id: number): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(connections)
      .where(eq(connections.id, id))
      .returning({ id: connections.id });
    return deleted.length > 0;
  }

  /** Driver options to reach the monitored server, password decrypted (never log them). */
  clientOptions(row: ConnectionRow, database?: string): postgres.Options<Record<string, never>> {
    const { isLocalHost: _, ...target } = serverTarget(
      {
        id: row.id,
        name: row.name,
        host: row.host,
        hostaddr: row.hostaddr,
        port: row.port,
        database_name: row.databaseName,
        username: row.username,
        password_encrypted: row.passwordEncrypted,
        sslmode: row.sslmode,
        sslcert: row.sslcert,
        sslkey: row.sslkey,
        sslrootcert: row.sslrootcert,
        is_local: row.isLocal,
        connection_error: row.connectionError,
      },
      this.key,
    );
    return { ...target, database: database ?? row.databaseName };
  }

  async selection(token: string) {
    const [row] = await this.datastore.db
      .select()
      .from(connectionSelections)
      .where(eq(connectionSelections.credentialHash, credentialHash(token)));
    return row;
  }

  async select(token: string, connectionId: number, databaseName: string | null): Promise<void> {
    const values = {
      credentialHash: credentialHash(token),
      connectionId,
      databaseName,
      updatedAt: new Date(),
    };
    await this.datastore.db
      .insert(connectionSelections)
      .values(values)
      .onConflictDoUpdate({ target: connectionSelections.credentialHash, set: values });
  }

  async clearSelection(token: string): Promise<void> {
    await this.datastore.db
      .delete(connectionSelections)
      .where(eq(connectionSelections.credentialHash, credentialHash(token)));
  }
}
