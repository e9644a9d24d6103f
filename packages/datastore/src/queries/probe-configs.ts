import type { Sql } from "../datastore.js";

export type ProbeConfigScope = "global" | "group" | "cluster" | "server";

/** A probe's defaults as the collector's registry declares them. */
export interface ProbeDefaults {
  name: string;
  description: string;
  intervalSeconds: number;
  retentionDays: number;
  /** The probe lists system catalogs' objects that its configuration may leave out. */
  systemCatalogsOptional?: boolean;
}

/** The settings that apply to one probe on one connection. */
export interface EffectiveProbeConfig {
  enabled: boolean;
  intervalSeconds: number;
  retentionDays: number;
  /** Null for a probe without system catalogs to leave out. */
  includeSystemCatalogs: boolean | null;
}

/** Where a connection sits in the cluster hierarchy (null when it is in none). */
export interface ConnectionPlacement {
  clusterId: number | null;
  groupId: number | null;
}

interface ConfigRow {
  name: string;
  scope: ProbeConfigScope;
  scope_id: number;
  is_enabled: boolean;
  collection_interval_seconds: number;
  retention_days: number;
  include_system_catalogs: boolean | null;
}

/**
 * Inserts the global row of every probe that has none yet; existing rows (possibly edited) are left
 * as they are. Safe when several collectors start at once.
 */
export async function seedProbeConfigs(sql: Sql, defaults: readonly ProbeDefaults[]): Promise<void> {
  if (defaults.length === 0) {
    return;
  }
  const rows = defaults.map((probe) => ({
    name: probe.name,
    description: probe.description,
    collection_interval_seconds: Math.max(1, Math.round(probe.intervalSeconds)),
    retention_days: probe.retentionDays,
    include_system_catalogs: probe.systemCatalogsOptional ? true : null,
    scope: "global",
    scope_id: 0,
  }));
  await sql`insert into probe_configs ${sql(rows)} on conflict (name, scope, scope_id) do nothing`;
}

/**
 * The cluster and cluster group of each connection: `connections.cluster_id`, and the cluster's
 * `group_id` when the clusters table exists (it belongs to the clusters feature).
 */
export async function connectionPlacements(
  sql: Sql,
  ids: readonly number[],
): Promise<Map<number, ConnectionPlacement>> {
  const [probe] = await sql<{ clusters: boolean }[]>`
    select to_regclass('public.clusters') is not null
      and exists (select 1 from information_schema.columns
        where table_schema = 'public' and table_name = 'clusters' and column_name = 'group_id') as clusters`;
  const rows = probe?.clusters
    ? await sql<{ id: number; cluster_id: number | null; group_id: number | null }[]>`
        select c.id, c.cluster_id, cl.group_id
        from connections c left join clusters cl on cl.id = c.cluster_id
        where c.id = any(${ids as number[]}::int[])`
    : await sql<{ id: number; cluster_id: number | null; group_id: null }[]>`
        select id, cluster_id, null::int as group_id from connections where id = any(${ids as number[]}::int[])`;
  return new Map(rows.map((row) => [row.id, { clusterId: row.cluster_id, groupId: row.group_id }]));
}

/** The row that applies: server, then cluster, then group, then global. */
export function resolveProbeConfig<R extends Pick<ConfigRow, "scope" | "scope_id">>(
  rows: readonly R[],
  connectionId: number,
  placement: ConnectionPlacement,
): R | undefined {
  const wanted: [ProbeConfigScope, number | null][] = [
    ["server", connectionId],
    ["cluster", placement.clusterId],
    ["group", placement.groupId],
    ["global", 0],
  ];
  for (const [scope, id] of wanted) {
    const row =
      id === null
        ? undefined
        : rows.find((candidate) => candidate.scope === scope && candidate.scope_id === id);
    if (row) {
      return row;
    }
  }
  return undefined;
}

/**
 * The settings of every probe for each of the connections, resolved now (later edits of any scope
 * apply at the next call). Probes without any row are absent: their registry defaults apply.
 */
export async function effectiveProbeConfigs(
  sql: Sql,
  connectionIds: readonly number[],
): Promise<Map<number, Map<string, EffectiveProbeConfig>>> {
  const result = new Map<number, Map<string, EffectiveProbeConfig>>();
  if (connectionIds.length === 0) {
    return result;
  }
  const [rows, placements] = await Promise.all([
    sql<ConfigRow[]>`
      select name, scope, scope_id, is_enabled, collection_interval_seconds, retention_days,
        include_system_catalogs
      from probe_configs`,
    connectionPlacements(sql, connectionIds),
  ]);
  const byProbe = new Map<string, ConfigRow[]>();
  for (const row of rows) {
    byProbe.set(row.name, [...(byProbe.get(row.name) ?? []), row]);
  }
  for (const id of connectionIds) {
    const placement = placements.get(id) ?? { clusterId: null, groupId: null };
    const configs = new Map<string, EffectiveProbeConfig>();
    for (const [name, probeRows] of byProbe) {
      const row = resolveProbeConfig(probeRows, id, placement);
      if (row) {
        configs.set(name, {
          enabled: row.is_enabled,
          intervalSeconds: row.collection_interval_seconds,
          retentionDays: row.retention_days,
          includeSystemCatalogs: row.include_system_catalogs,
        });
      }
    }
    result.set(id, configs);
  }
  return result;
}

/** The longest retention any scope gives each probe: no partition newer than that may go. */
export async function longestRetentionDays(sql: Sql): Promise<Map<string, number>> {
  const rows = await sql<{ name: string; days: number }[]>`
    select name, max(retention_days)::int as days from probe_configs group by name`;
  return new Map(rows.map((row) => [row.name, row.days]));
}
