import type { ProbeSpec } from "@dbmon/monitoring";

export type { ColumnType, ProbeColumn, ProbeScope, ProbeSpec } from "@dbmon/monitoring";

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
  /**
   * Whether a probe listing objects of every schema lists the system catalogs' too (the probe
   * configuration's `include_system_catalogs`); probes without any to leave out ignore it.
   */
  includeSystemCatalogs: boolean;
  /**
   * Tells that what the probe reads does not exist in this database (an extension's table where the
   * extension is not installed), so the run is empty and the next ones may skip it for a while.
   */
  absent(): void;
}

/** How the collector gathers one catalogue probe's rows; attached to the catalogue entry by name. */
export interface ProbeCollection {
  name: string;
  /** SQL per server version range, newest last; used unless `collect` is given. */
  queries?: readonly VersionedQuery[];
  /** Custom collection; returns null when the probe cannot run on this server (nothing is stored). */
  collect?(context: ProbeContext): Promise<ProbeRow[] | null>;
}

/** A catalogue probe (`@dbmon/datastore`) with its collection. */
export interface ProbeDefinition extends ProbeSpec, Omit<ProbeCollection, "name"> {}

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
