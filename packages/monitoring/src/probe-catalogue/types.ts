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
 * Rows of a changed-rows probe that dbmon's own collection keeps changing: the system catalogs its
 * probes read (their scan and block counters move at every run), its own tagged statements. Such a
 * row is stored when a column of `immediate` changed, and otherwise at most once per
 * `FOOTPRINT_REFRESH_SECONDS`, so that what dbmon does to watch a database is not most of what it
 * stores of it. Readers see the row last stored (the view's rule): its other columns up to that long
 * behind.
 */
export interface ChangedRowsFootprint {
  /** Whether a collected row is dbmon's footprint (the probe's columns by name). */
  when: (row: Readonly<Record<string, unknown>>) => boolean;
  /** Columns whose change is stored at once (what alerts and health checks read). */
  immediate: readonly string[];
}

/** The system catalogs' schemas: what "system" means to the probes, the alerter and the API. */
export const SYSTEM_SCHEMAS: readonly string[] = ["pg_catalog", "information_schema", "pg_toast"];

/** SQL: a parenthesised list of SYSTEM_SCHEMAS, for `schemaname [not] in ...`. */
export const SYSTEM_SCHEMAS_SQL = `(${SYSTEM_SCHEMAS.map((name) => `'${name}'`).join(", ")})`;

/** How often a footprint row changed in other columns only is stored: an hour. */
export const FOOTPRINT_REFRESH_SECONDS = 3600;

/**
 * `server`: once per run on the connection's own database. `database`: in every connectable,
 * non-template database; rows carry `database_name`. `host`: the machine the server runs on.
 */
export type ProbeScope = "server" | "database" | "host";

/**
 * What a probe stores and how often, without how it collects: the collector attaches its queries by
 * name, while the alerter and the API read the metric tables from this alone.
 */
export interface ProbeSpec {
  /** Also the name of its table in the `metrics` schema. */
  name: string;
  scope: ProbeScope;
  intervalSeconds: number;
  retentionDays: number;
  /** Configuration-like: a snapshot is stored only when its content changed. */
  snapshot: boolean;
  /** Stored columns besides connection_id, collected_at (and database_name for database scope). */
  columns: readonly ProbeColumn[];
  /**
   * Database probes whose rows are objects with counters (tables, indexes, statements): a run stores
   * only the objects whose values changed since the previous run, and `metrics.<name>` is a view that
   * rebuilds every run in full (`@dbmon/datastore`, `changedRowsDdl`). `key`: the columns naming an
   * object within one database.
   */
  changedRows?: { key: readonly string[]; footprint?: ChangedRowsFootprint };
  /**
   * A server-scope probe whose rows depend on the database connected to (its publications and Spock
   * node, settings set per database): run and stored for each connection in its own database rather
   * than once per server.
   */
  readsConnectedDatabase?: true;
  /**
   * A database probe listing objects of every schema, whose system catalogs' objects (schemas
   * SYSTEM_SCHEMAS, named by column `schemaname`) the probe configuration may leave out: its
   * `include_system_catalogs` setting, true by default.
   */
  systemCatalogsOptional?: true;
}

/**
 * A catalogue entry as written in the scope files: columns as [name, type] pairs; retention and
 * snapshot only where they differ from the defaults.
 */
export interface ProbeEntry extends Omit<ProbeSpec, "scope" | "columns" | "retentionDays" | "snapshot"> {
  description: string;
  retentionDays?: number;
  snapshot?: true;
  columns: ReadonlyArray<readonly [string, ColumnType]>;
}

/** Most probes keep a week of history; snapshot probes (configuration) say so. */
const DEFAULT_RETENTION_DAYS = 7;

export interface DescribedProbeSpec extends ProbeSpec {
  /** What the probe collects, as the probe configuration shows it. */
  description: string;
}

export function probesOfScope(scope: ProbeScope, entries: readonly ProbeEntry[]): DescribedProbeSpec[] {
  return entries.map((entry) => ({
    ...entry,
    retentionDays: entry.retentionDays ?? DEFAULT_RETENTION_DAYS,
    snapshot: entry.snapshot ?? false,
    scope,
    columns: entry.columns.map(([name, type]) => ({ name, type })),
  }));
}
