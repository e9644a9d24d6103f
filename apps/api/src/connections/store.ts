import { createHash } from "node:crypto";
import { HostRefusedError, readSslFile, SslFileError, serverTarget } from "@dbmon/collector";
import { type Datastore, encryptSecret, type SecretKey, schema } from "@dbmon/datastore";
import { type HostPolicy, isAllowedPort, monitoredServerSession, ReceiveBudget } from "@dbmon/monitoring";
import { asc, count, eq } from "drizzle-orm";
import postgres from "postgres";
import type { PresentedCredential, RequestAccess } from "../auth/access.js";
import { Visibility } from "../auth/visibility.js";
import { Forbidden, InvalidInput, NotAuthenticated, NotFound, OperationFailed } from "../errors.js";
import type { Logger } from "../logger.js";
import { type Page, withTotal } from "../paging.js";
import { SELF_CONNECTION_SHARING_REFUSED } from "./self-monitoring.js";

const { connections, connectionSelections } = schema;

/** The most a monitored server's list of databases may take on the wire; far more than a real one. */
const DATABASE_LIST_BYTES = 16 * 1024 * 1024;
/** The whole live listing of a server's databases, connecting included, ends within this. */
const DATABASE_LIST_DEADLINE_MS = 10_000;

export type ConnectionRow = typeof connections.$inferSelect;

/** Fields a caller may set; the password arrives in clear text and is stored encrypted. */
export interface ConnectionInput {
  name?: string | undefined;
  description?: string | undefined;
  host?: string | undefined;
  hostaddr?: string | undefined;
  port?: number | undefined;
  databaseName?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  sslMode?: string | undefined;
  sslCertPath?: string | undefined;
  sslKeyPath?: string | undefined;
  sslRootCertPath?: string | undefined;
  isShared?: boolean | undefined;
  isMonitored?: boolean | undefined;
}

/** What a new connection needs besides the optional fields. */
export type NewConnection = ConnectionInput & {
  name: string;
  host: string;
  port: number;
  databaseName: string;
  username: string;
};

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
      databaseName: defined(input.databaseName),
      username: defined(input.username),
      passwordEncrypted: input.password === undefined ? undefined : encryptSecret(key, input.password),
      sslmode: defined(input.sslMode),
      sslcert: defined(input.sslCertPath),
      sslkey: defined(input.sslKeyPath),
      sslrootcert: defined(input.sslRootCertPath),
      isShared: defined(input.isShared),
      isMonitored: defined(input.isMonitored),
    }).filter(([, value]) => value !== undefined),
  ) as Partial<typeof connections.$inferInsert>;
}

/**
 * The stored password never follows a change of destination: whoever may edit a connection but not
 * read its password could otherwise point it at a server of their own that asks for it in clear.
 * Nor does it follow a change of `ssl_mode`: a weaker mode lets whoever sits on the network pose as
 * the server and ask for the password in clear, and any change is treated alike so that no list of
 * "weaker" modes can be got wrong. The trusted CA (`ssl_root_cert_path`) decides who may pose as the
 * server under verify-ca/verify-full, so it counts as part of `ssl_mode`; the client's own certificate
 * and key do not decide whom the password is sent to.
 */
function requireReenteredPassword(stored: ConnectionRow, input: ConnectionInput): void {
  if (stored.passwordEncrypted === null || input.password !== undefined) {
    return;
  }
  const moved =
    (input.host !== undefined && input.host !== stored.host) ||
    (input.hostaddr !== undefined && input.hostaddr !== (stored.hostaddr ?? "")) ||
    (input.port !== undefined && input.port !== stored.port);
  if (moved) {
    throw new InvalidInput(
      "Changing host, hostaddr or port requires re-entering the password (send password with the change)",
    );
  }
  const trustChanged =
    (input.sslMode !== undefined && input.sslMode !== stored.sslmode) ||
    (input.sslRootCertPath !== undefined && (input.sslRootCertPath || null) !== (stored.sslrootcert || null));
  if (trustChanged) {
    throw new InvalidInput(
      "Changing ssl_mode or ssl_root_cert_path requires re-entering the password (send password with the change)",
    );
  }
}

/**
 * Runs `read`, turning an unusable certificate or key file (naming the field) or a host the policy
 * refuses at connect time into a 400.
 */
async function asInvalidInput<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof HostRefusedError) {
      throw new InvalidInput("Invalid host");
    }
    throw error instanceof SslFileError ? new InvalidInput(error.message) : error;
  }
}

/** SHA-256 of a raw token: how a credential's selection is keyed without storing the token. */
export function credentialHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The raw token of the request's credential: selections are kept per credential. */
function credentialToken(credential: PresentedCredential): string {
  if (credential.kind !== "token" || !credential.token) {
    throw new NotAuthenticated("Missing or invalid authentication credentials");
  }
  return credential.token;
}

/** A database of a monitored server, as `GET /connections/{id}/databases` lists it. */
export interface ServerDatabase {
  name: string;
  owner: string;
  encoding: string;
  size: string;
  tablespace: string;
  description: string | null;
}

/** A credential's selected connection, with what the API shows of it. */
export interface CurrentConnection {
  connection_id: number;
  database_name: string | null;
  host: string;
  port: number;
  name: string;
}

export interface ConnectionStoreOptions {
  datastore: Datastore;
  key: SecretKey;
  /** Which hosts connections may point at (the SSRF guard). */
  hostPolicy: HostPolicy;
  /** DBMON_SSL_DIR: the only directory `ssl_*_path` files may be in (unset: none may be given). */
  sslDirectory: string | undefined;
  logger: Logger;
}

export class ConnectionStore {
  private readonly datastore: Datastore;
  private readonly key: SecretKey;
  private readonly hostPolicy: HostPolicy;
  private readonly sslDirectory: string | undefined;
  private readonly logger: Logger;

  constructor(options: ConnectionStoreOptions) {
    this.datastore = options.datastore;
    this.key = options.key;
    this.hostPolicy = options.hostPolicy;
    this.sslDirectory = options.sslDirectory;
    this.logger = options.logger;
  }

  /** The connections the caller can see, ordered by name; filtered in SQL. */
  async list(access: RequestAccess): Promise<ConnectionRow[]> {
    return this.datastore.db
      .select()
      .from(connections)
      .where((await Visibility.of(access)).connection(connections.id))
      .orderBy(asc(connections.name), asc(connections.id));
  }

  /**
   * The connections the caller can see, ordered by name: one page, filtered and paged in SQL, and
   * the total of all the caller can see.
   */
  async find(
    access: RequestAccess,
    { limit, offset }: Page,
  ): Promise<{ connections: ConnectionRow[]; total: number }> {
    const visible = (await Visibility.of(access)).connection(connections.id);
    const db = this.datastore.db;
    const { rows, total } = await withTotal(
      db
        .select()
        .from(connections)
        .where(visible)
        .orderBy(asc(connections.name), asc(connections.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(connections).where(visible),
    );
    return { connections: rows, total };
  }

  /** Refuses hosts and ports monitored connections may not point at (the SSRF guard). */
  async checkReachable(target: {
    host?: string | undefined;
    hostaddr?: string | undefined;
    port?: number | undefined;
  }): Promise<void> {
    for (const host of [target.host, target.hostaddr]) {
      if (host !== undefined && !(await this.hostPolicy.allows(host))) {
        throw new InvalidInput("Invalid host");
      }
    }
    if (target.port !== undefined && !isAllowedPort(target.port)) {
      throw new InvalidInput("Invalid port");
    }
  }

  /**
   * Refuses certificate and key paths that could not be used: outside DBMON_SSL_DIR, not a regular
   * file, too large (checked again whenever they are read).
   */
  async checkSslFiles(input: ConnectionInput): Promise<void> {
    const paths = {
      ssl_root_cert_path: input.sslRootCertPath,
      ssl_cert_path: input.sslCertPath,
      ssl_key_path: input.sslKeyPath,
    };
    for (const [field, path] of Object.entries(paths)) {
      if (path) {
        await asInvalidInput(() => readSslFile(field, path, this.sslDirectory));
      }
    }
  }

  /** Registers a connection the caller owns, once its target passes the SSRF guard. */
  async register(access: RequestAccess, input: NewConnection): Promise<ConnectionRow> {
    await this.checkReachable(input);
    await this.checkSslFiles(input);
    const caller = await access.requireCaller();
    return this.create(input, caller.username);
  }

  /**
   * Changes a connection for the caller: sharing it is for whom the access module allows (it grants
   * the connection to everyone), and a new target must pass the SSRF guard.
   */
  async change(access: RequestAccess, id: number, input: ConnectionInput): Promise<ConnectionRow> {
    if (input.isShared === true) {
      await access.requireMayShareConnection(id);
      // dbmon's own datastore is never shared.
      if ((await this.get(id))?.isLocal) {
        throw new InvalidInput(SELF_CONNECTION_SHARING_REFUSED);
      }
    }
    // The password rule first: a change it refuses probes neither the network nor the file system.
    requireReenteredPassword(await this.require(id), input);
    await this.checkReachable(input);
    await this.checkSslFiles(input);
    const row = await this.update(id, input);
    if (!row) {
      throw new NotFound("Connection not found");
    }
    return row;
  }

  /** A connection that exists, or not found. */
  async require(id: number): Promise<ConnectionRow> {
    const row = await this.get(id);
    if (!row) {
      throw new NotFound("Connection not found");
    }
    return row;
  }

  async get(id: number): Promise<ConnectionRow | undefined> {
    const [row] = await this.datastore.db.select().from(connections).where(eq(connections.id, id));
    return row;
  }

  async create(
    input: NewConnection,
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

  /**
   * Driver options to reach the monitored server, password decrypted (never log them). An unusable
   * certificate or key file is a 400 naming the field.
   */
  async clientOptions(
    row: ConnectionRow,
    database?: string,
  ): Promise<postgres.Options<Record<string, never>>> {
    const {
      isLocalHost: _,
      address,
      ...target
    } = await asInvalidInput(() =>
      serverTarget(
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
        { key: this.key, sslDirectory: this.sslDirectory, hostPolicy: this.hostPolicy },
      ),
    );
    // Resolved and vetted now, and connected to by address: the name cannot lead elsewhere later.
    const host = await asInvalidInput(address);
    return { ...target, host, database: database ?? row.databaseName };
  }

  /** The databases of the connection's server, read live; template databases excluded. */
  async databases(row: ConnectionRow): Promise<ServerDatabase[]> {
    const target = await this.clientOptions(row);
    const sql = postgres({
      ...target,
      ...monitoredServerSession(target, new ReceiveBudget(DATABASE_LIST_BYTES), 10_000),
      max: 1,
      connect_timeout: 10,
      idle_timeout: 1,
      onnotice: () => {},
      connection: { application_name: "dbmon api", statement_timeout: 30_000 },
    });
    // The server's statement_timeout cannot end a call whose server stopped answering (a stalled
    // network path keeps the socket open): the deadline is kept here, and ends the session.
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void sql.end({ timeout: 0 });
        reject(new Error(`no answer within ${DATABASE_LIST_DEADLINE_MS} ms`));
      }, DATABASE_LIST_DEADLINE_MS);
    });
    try {
      const listing = sql<ServerDatabase[]>`
        select d.datname as name, pg_get_userbyid(d.datdba) as owner,
               pg_encoding_to_char(d.encoding) as encoding,
               case when has_database_privilege(d.oid, 'CONNECT')
                    then pg_size_pretty(pg_database_size(d.oid)) else 'unknown' end as size,
               t.spcname as tablespace, shobj_description(d.oid, 'pg_database') as description
        from pg_database d join pg_tablespace t on t.oid = d.dattablespace
        where d.datallowconn and not d.datistemplate
        order by d.datname`;
      return [...(await Promise.race([listing, deadline]))];
    } catch (error) {
      this.logger.warn({ err: error, connectionId: row.id }, "listing databases failed");
      throw new OperationFailed("Failed to list databases");
    } finally {
      clearTimeout(timer);
      await sql.end({ timeout: 1 });
    }
  }

  /** The connection the caller's credential selected: not found without one, forbidden if hidden. */
  async current(access: RequestAccess): Promise<CurrentConnection> {
    const [selection] = await this.datastore.db
      .select()
      .from(connectionSelections)
      .where(eq(connectionSelections.credentialHash, credentialHash(credentialToken(access.credential))));
    const row = selection && (await this.get(selection.connectionId));
    if (!selection || !row) {
      throw new NotFound("No database connection selected");
    }
    if (!(await access.connectionLevel(row.id))) {
      throw new Forbidden("Access denied");
    }
    return presentSelection(row, selection.databaseName);
  }

  /** Selects a connection (and database) the caller can see for the caller's credential. */
  async select(
    access: RequestAccess,
    connectionId: number,
    databaseName: string | null,
  ): Promise<CurrentConnection> {
    if (connectionId <= 0) {
      throw new InvalidInput("connection_id is required");
    }
    const row = await this.get(connectionId);
    if (!row) {
      throw new InvalidInput("Connection not found");
    }
    if (!(await access.connectionLevel(row.id))) {
      throw new Forbidden("Access denied");
    }
    const values = {
      credentialHash: credentialHash(credentialToken(access.credential)),
      connectionId: row.id,
      databaseName,
      updatedAt: new Date(),
    };
    await this.datastore.db
      .insert(connectionSelections)
      .values(values)
      .onConflictDoUpdate({ target: connectionSelections.credentialHash, set: values });
    return presentSelection(row, databaseName);
  }

  async clearSelection(access: RequestAccess): Promise<void> {
    await this.datastore.db
      .delete(connectionSelections)
      .where(eq(connectionSelections.credentialHash, credentialHash(credentialToken(access.credential))));
  }
}

function presentSelection(row: ConnectionRow, databaseName: string | null): CurrentConnection {
  return {
    connection_id: row.id,
    database_name: databaseName,
    host: row.host,
    port: row.port,
    name: row.name,
  };
}
