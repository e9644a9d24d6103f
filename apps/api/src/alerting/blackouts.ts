import type { Sql } from "@dbmon/datastore";
import type { RequestAccess } from "../auth/access.js";
import { ApiError } from "../http/errors.js";
import { connectionsInScope } from "./scopes.js";
import { iso, isoOrNull } from "./time.js";

export interface ScopeInput {
  scope: string;
  group_id?: number | null | undefined;
  cluster_id?: number | null | undefined;
  connection_id?: number | null | undefined;
  database_name?: string | null | undefined;
}

export interface Target {
  scope: "estate" | "group" | "cluster" | "server";
  groupId: number | null;
  clusterId: number | null;
  connectionId: number | null;
  databaseName: string | null;
}

const idNames = { group: "group_id", cluster: "cluster_id", server: "connection_id" } as const;

/** The scope and its one id, as the reference words its refusals; the server's connection must exist. */
export async function validTarget(sql: Sql, input: ScopeInput): Promise<Target> {
  const scope = input.scope;
  if (scope !== "estate" && scope !== "group" && scope !== "cluster" && scope !== "server") {
    throw new ApiError(400, `invalid scope: ${scope} (must be estate, group, cluster, or server)`);
  }
  const given = {
    group: input.group_id ?? null,
    cluster: input.cluster_id ?? null,
    server: input.connection_id ?? null,
  };
  for (const kind of ["group", "cluster", "server"] as const) {
    if (kind !== scope && given[kind] !== null) {
      throw new ApiError(400, `${scope} scope must not have ${idNames[kind]}`);
    }
  }
  if (scope !== "estate" && (given[scope] === null || (given[scope] as number) < 1)) {
    throw new ApiError(400, `${scope} scope requires ${idNames[scope]}`);
  }
  if (scope === "server") {
    const [row] = await sql`select 1 from connections where id = ${given.server}`;
    if (!row) {
      throw new ApiError(404, "Connection not found");
    }
  }
  const databaseName = input.database_name?.trim() ? input.database_name.trim() : null;
  return {
    scope,
    groupId: given.group,
    clusterId: given.cluster,
    connectionId: given.server,
    databaseName,
  };
}

export interface BlackoutRow {
  id: number;
  scope: string;
  group_id: number | null;
  cluster_id: number | null;
  connection_id: number | null;
  database_name: string | null;
  reason: string;
  start_time: string;
  end_time: string;
  created_by: string;
  created_at: string;
  is_active: boolean;
}

export function blackoutSelect(sql: Sql) {
  return sql`
    select id::int as id, scope, group_id, cluster_id, connection_id, database_name, reason, start_time, end_time,
      created_by, created_at, (start_time <= now() and now() <= end_time) as is_active
    from blackouts`;
}

export function presentBlackout(row: BlackoutRow) {
  return {
    id: row.id,
    scope: row.scope,
    group_id: row.group_id,
    cluster_id: row.cluster_id,
    connection_id: row.connection_id,
    database_name: row.database_name,
    reason: row.reason,
    start_time: iso(row.start_time),
    end_time: iso(row.end_time),
    created_by: row.created_by,
    created_at: iso(row.created_at),
    is_active: row.is_active,
  };
}

export interface ScheduleRow {
  id: number;
  scope: string;
  group_id: number | null;
  cluster_id: number | null;
  connection_id: number | null;
  database_name: string | null;
  name: string;
  cron_expression: string;
  duration_minutes: number;
  timezone: string;
  reason: string;
  enabled: boolean;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export function presentSchedule(row: ScheduleRow) {
  return {
    id: row.id,
    scope: row.scope,
    group_id: row.group_id,
    cluster_id: row.cluster_id,
    connection_id: row.connection_id,
    database_name: row.database_name,
    name: row.name,
    cron_expression: row.cron_expression,
    duration_minutes: row.duration_minutes,
    timezone: row.timezone,
    reason: row.reason,
    enabled: row.enabled,
    created_by: row.created_by,
    created_at: iso(row.created_at),
    updated_at: isoOrNull(row.updated_at) ?? iso(row.created_at),
  };
}

/** Whether a caller sees a blackout or schedule: estate ones always, others through a visible connection. */
export async function targetVisible(
  access: RequestAccess,
  sql: Sql,
  row: { scope: string; group_id: number | null; cluster_id: number | null; connection_id: number | null },
): Promise<boolean> {
  if (row.scope === "estate" || (await access.isSuperuser())) {
    return true;
  }
  const id =
    row.scope === "server" ? row.connection_id : row.scope === "cluster" ? row.cluster_id : row.group_id;
  if (id === null) {
    return false;
  }
  const visible = await access.visibleConnections();
  const members = await connectionsInScope(sql, row.scope, id);
  return members.some((member) => visible.ids.includes(member));
}

/** Filters rows to the visible ones (superusers: all). */
export async function visibleRows<
  R extends {
    scope: string;
    group_id: number | null;
    cluster_id: number | null;
    connection_id: number | null;
  },
>(access: RequestAccess, sql: Sql, rows: R[]): Promise<R[]> {
  if (await access.isSuperuser()) {
    return rows;
  }
  const kept: R[] = [];
  for (const row of rows) {
    if (await targetVisible(access, sql, row)) {
      kept.push(row);
    }
  }
  return kept;
}
