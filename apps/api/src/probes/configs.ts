import type { Sql } from "@dbmon/datastore";
import type { RequestAccess } from "../auth/access.js";
import { ApiError } from "../http/errors.js";

/** A probe_configs row as the API shows it. */
export interface ProbeConfigRow {
  id: number;
  connection_id: number | null;
  is_enabled: boolean;
  name: string;
  description: string;
  collection_interval_seconds: number;
  retention_days: number;
  created_at: string;
  updated_at: string;
}

/** Select list of a ProbeConfigRow from `probe_configs p` (timestamps as ISO 8601 text). */
export const PROBE_CONFIG_COLUMNS = `p.id, case when p.scope = 'server' then p.scope_id end as connection_id,
  p.is_enabled, p.name, p.description, p.collection_interval_seconds, p.retention_days,
  to_json(p.created_at) #>> '{}' as created_at, to_json(p.updated_at) #>> '{}' as updated_at`;

export type OverrideScope = "server" | "cluster" | "group";

const SCOPE_NOT_FOUND = "Probe override scope not found";

/**
 * 404 unless the scope exists and, for callers other than superusers, holds a connection they can
 * see: the connection itself (server), a connection of the cluster, or of a cluster of the group.
 * Clusters and cluster groups are the clusters feature's tables: without them only server scopes
 * can be checked, and cluster or group scopes are visible to superusers only.
 */
export async function requireVisibleScope(
  sql: Sql,
  access: RequestAccess,
  scope: OverrideScope,
  scopeId: number,
): Promise<void> {
  const superuser = await access.isSuperuser();
  const visible = superuser ? undefined : await access.visibleConnections();
  const visibleIds = visible && !visible.all ? visible.ids : null;
  const [tables] = await sql<{ clusters: boolean; groups: boolean }[]>`
    select to_regclass('public.clusters') is not null as clusters,
      to_regclass('public.cluster_groups') is not null as groups`;
  let found: boolean;
  if (scope === "server") {
    const [row] = await sql`select 1 from connections where id = ${scopeId}
      and (${visibleIds === null} or id = any(${visibleIds ?? []}::int[]))`;
    found = row !== undefined;
  } else if (superuser) {
    const table =
      scope === "cluster" ? (tables?.clusters ? "clusters" : null) : tables?.groups ? "cluster_groups" : null;
    found =
      table === null
        ? true
        : (await sql.unsafe(`select 1 from ${table} where id = $1`, [scopeId])).length > 0;
  } else if (scope === "cluster") {
    const [row] = await sql`select 1 from connections where cluster_id = ${scopeId}
      and (${visibleIds === null} or id = any(${visibleIds ?? []}::int[])) limit 1`;
    found = row !== undefined;
  } else {
    found =
      tables?.clusters === true &&
      (
        await sql.unsafe(
          `select 1 from connections c join clusters cl on cl.id = c.cluster_id
           where cl.group_id = $1 and ($2::boolean or c.id = any($3::int[])) limit 1`,
          [scopeId, visibleIds === null, visibleIds ?? []],
        )
      ).length > 0;
  }
  if (!found) {
    throw new ApiError(404, SCOPE_NOT_FOUND);
  }
}

/** 404 unless the probe is in the catalogue (has a global default). */
export async function requireKnownProbe(sql: Sql, name: string): Promise<void> {
  const [row] = await sql`select 1 from probe_configs where scope = 'global' and name = ${name}`;
  if (!row) {
    throw new ApiError(404, "Probe not found");
  }
}
