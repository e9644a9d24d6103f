/** Column types a probe table may use (PostgreSQL type names). */
export type ColumnType =
  | "text"
  | "integer"
  | "bigint"
  | "numeric"
  | "double precision"
  | "interval"
  | "inet"
  | "boolean"
  | "timestamptz"
  | "text[]"
  | "jsonb";

export interface ProbeColumn {
  name: string;
  type: ColumnType;
}

/**
 * `server`: once per run on the connection's own database. `database`: in every connectable,
 * non-template database; rows carry `database_name`. `host`: the machine the server runs on.
 */
export type ProbeScope = "server" | "database" | "host";

export type ProbeRow = Record<string, unknown>;

/** SQL for servers whose `server_version_num` is at least `minVersion` (up to the next variant). */
export interface VersionedQuery {
  minVersion: number;
  sql: string;
}

/** What a probe sees of the monitored server during one run. */
export interface ProbeContext {
  /** Runs SQL in the database being collected, tagged and within the run's time limit. */
  query(sql: string): Promise<ProbeRow[]>;
  serverVersionNum: number;
  /** Schema holding the `system_stats` functions on this server, or null when they are absent. */
  systemStatsSchema: string | null;
  /** The server runs on the collector's own host (loopback or socket address, or flagged local). */
  isLocalHost: boolean;
}

export interface ProbeDefinition {
  /** Also the name of its table in the `metrics` schema. */
  name: string;
  scope: ProbeScope;
  intervalSeconds: number;
  retentionDays: number;
  /** Configuration-like: a snapshot is stored only when its content changed. */
  snapshot: boolean;
  /** Stored columns besides connection_id, collected_at (and database_name for database scope). */
  columns: readonly ProbeColumn[];
  /** SQL per server version range, newest last; used unless `collect` is given. */
  queries?: readonly VersionedQuery[];
  /** Custom collection; returns null when the probe cannot run on this server (nothing is stored). */
  collect?(context: ProbeContext): Promise<ProbeRow[] | null>;
}

/** The query of `queries` that applies to a server version. */
export function queryForVersion(queries: readonly VersionedQuery[], versionNum: number): string | undefined {
  let chosen: VersionedQuery | undefined;
  for (const query of queries) {
    if (query.minVersion <= versionNum && (!chosen || query.minVersion > chosen.minVersion)) {
      chosen = query;
    }
  }
  return chosen?.sql;
}
