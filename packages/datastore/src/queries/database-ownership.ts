import type { Sql } from "../datastore.js";

/**
 * Which connection a database of a monitored server belongs to, when several connections reach one
 * server: a database registered as a monitored connection of its own belongs to that connection (to
 * each, if registered twice); the server's other databases belong to the lowest-id monitored
 * connection at the server's address; a server with one connection has all its databases there. The
 * collector stores each database's rows under its connections only, and the alerter reads
 * per-database rows of server-wide probes (pg_database) by the same rule, so that one database is
 * one series and one alert, not one per connection of its server. Both forms of the rule live here;
 * the readers' form, which connection's rows a reader of any connection reads for each database, is
 * the view `dbmon_database_sources` of migration 0029 (tested against `collectsDatabase`).
 *
 * The same lowest-id monitored connection speaks for its server: whole-server alerts (a condition of
 * the server or its host, not of one database) are raised and stored once per server, under it
 * (`firstConnectionId`), and every connection at the address shares them (`sameServer`). Server-wide
 * probe rows are stored once per server under the same connection (`dbmon_server_connection`,
 * migration 0029).
 */

/** Where a server is: connections at one address are the same server to this rule. */
export function serverAddress(row: { host: string; hostaddr: string | null; port: number }): string {
  return JSON.stringify([row.host, row.hostaddr ?? "", row.port]);
}

/** The monitored connections at one address: their databases and the lowest id among them. */
export interface ServerDirectoryEntry {
  databases: ReadonlySet<string>;
  /** The connection that speaks for the server: the lowest id. */
  firstConnectionId: number;
  /** Every monitored connection at the address, ascending. */
  connectionIds: readonly number[];
}

/** A connection as the directory reads it. */
export interface DirectoryConnection {
  id: number;
  host: string;
  hostaddr: string | null;
  port: number;
  database_name: string;
  is_monitored: boolean;
}

/** Every server address of the monitored connections among `rows` (any order). */
export function serverDirectory(rows: readonly DirectoryConnection[]): Map<string, ServerDirectoryEntry> {
  const directory = new Map<
    string,
    { databases: Set<string>; firstConnectionId: number; connectionIds: number[] }
  >();
  for (const row of [...rows].filter((r) => r.is_monitored).sort((a, b) => a.id - b.id)) {
    const address = serverAddress(row);
    const entry = directory.get(address) ?? {
      databases: new Set<string>(),
      firstConnectionId: row.id,
      connectionIds: [],
    };
    entry.databases.add(row.database_name);
    entry.connectionIds.push(row.id);
    directory.set(address, entry);
  }
  return directory;
}

/** Every server address of the monitored connections, whichever collector holds them. */
export async function readServerDirectory(sql: Sql): Promise<Map<string, ServerDirectoryEntry>> {
  return serverDirectory(
    await sql<DirectoryConnection[]>`
      select id, host, hostaddr, port, database_name, is_monitored from connections where is_monitored`,
  );
}

/**
 * The rule in SQL for two rows of `connections`: whether `left` and `right` are at one address
 * (one server).
 */
export function sameServer(left: string, right: string): string {
  return `(${left}.host = ${right}.host and coalesce(${left}.hostaddr, '') = coalesce(${right}.hostaddr, '')
    and ${left}.port = ${right}.port)`;
}

/** Whether `connection` collects `database` of its server, given its address's directory entry. */
export function collectsDatabase(
  entry: ServerDirectoryEntry | undefined,
  connection: { id: number; database_name: string },
  database: string,
): boolean {
  if (database === connection.database_name || !entry) {
    return true;
  }
  return entry.firstConnectionId === connection.id && !entry.databases.has(database);
}

/** Per connection: its own database, whether it collects the unregistered ones, the registered ones. */
const OWNERS = `(select c.id as connection_id, c.database_name as own_database,
    s.first_id is null or s.first_id = c.id as collects_unregistered, coalesce(s.registered, '{}') as registered
  from public.connections c
  left join (select host, coalesce(hostaddr, '') as hostaddr, port, min(id) as first_id,
               array_agg(database_name) as registered
             from public.connections where is_monitored group by 1, 2, 3) s
    on s.host = c.host and s.hostaddr = coalesce(c.hostaddr, '') and s.port = c.port)`;

/**
 * The rule in SQL: a join keeping the rows of `alias` (with `connection_id`) whose database, in
 * column `databaseColumn`, their connection collects.
 */
export function collectedDatabaseJoin(alias: string, databaseColumn: string): string {
  const database = `${alias}.${databaseColumn}`;
  return `join ${OWNERS} owner on owner.connection_id = ${alias}.connection_id
    and (${database} = owner.own_database
      or (owner.collects_unregistered and not ${database} = any(owner.registered)))`;
}

/*
 * Reading through a connection's server (migration 0029). Server-wide probes are stored once per
 * server, under its representative; per-database rows under the connection that collects the
 * database. A reader of connection X answers as if X collected alone by reading:
 */

/** SQL: the connection whose server-wide rows hold connection `connection`'s (an SQL expression). */
export function serverRowsConnection(connection: string): string {
  return `public.dbmon_server_connection(${connection})`;
}

/**
 * SQL: (connection_id, source_id) of each connection of the int[] expression `connections` with its
 * server's representative, for readers of many connections (one pass over connections).
 */
export function serverSources(connections: string): string {
  return `(select connection_id, server_connection_id as source_id from public.dbmon_connection_servers
    where connection_id = any(${connections}))`;
}

/**
 * SQL: (connection_id, source_id, own_database, collects_unregistered, registered) for each connection
 * of the int[] expression `connections` and each connection of its server whose per-database rows it
 * may read; `readsDatabaseRow` says which of a source's rows.
 */
export function databaseSources(connections: string): string {
  return `(select connection_id, source_id, own_database, collects_unregistered, registered
    from public.dbmon_database_sources where connection_id = any(${connections}))`;
}

/**
 * SQL condition: the row `row` (its database in `databaseColumn`) of the source `sources`
 * (`databaseSources`, joined on `source_id = row.connection_id`) is the one its reader reads for
 * that database: stored by the connection that collects it.
 */
export function readsDatabaseRow(row: string, sources: string, databaseColumn = "database_name"): string {
  const database = `${row}.${databaseColumn}`;
  return `(${database} = ${sources}.own_database
    or (${sources}.collects_unregistered and ${database} <> all(${sources}.registered)))`;
}

/**
 * Each of `connectionIds` with the connection whose reading of its server gives the same rows
 * (through `serverSources` and `databaseSources`), so that a reader of many connections reads each
 * set once: the server's representative for a monitored connection that is the lowest-id monitored
 * one of its database at its address (it then reads its own database from itself, as the
 * representative reads it, and every other database from where the representative reads it; the
 * usual case, a connection per database); itself otherwise (a second connection to a database, or
 * one not monitored, reads its own database from itself). Connections that do not exist are absent.
 */
export async function sameReadingConnections(
  sql: Sql,
  connectionIds: readonly number[],
): Promise<Map<number, number>> {
  const rows = await sql<{ id: number; reads_as: number }[]>`
    select id, reads_as from (
      select c.id,
        case when c.is_monitored and c.id = min(c.id) filter (where c.is_monitored)
            over (partition by c.host, coalesce(c.hostaddr, ''), c.port, c.database_name)
          then s.server_connection_id else c.id end as reads_as
      from public.connections c join public.dbmon_connection_servers s on s.connection_id = c.id) readers
    where id = any(${connectionIds as number[]}::int[])`;
  return new Map(rows.map((row) => [row.id, row.reads_as]));
}
