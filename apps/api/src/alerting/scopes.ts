import type { Sql } from "@dbmon/datastore";
import type { RequestAccess } from "../auth/access.js";

export type OverrideScope = "server" | "cluster" | "group";

/** The connections a scope covers: the connection itself, a cluster's members, a group's clusters' members. */
export async function connectionsInScope(sql: Sql, scope: string, scopeId: number): Promise<number[]> {
  if (scope === "server") {
    const rows = await sql<{ id: number }[]>`select id from connections where id = ${scopeId}`;
    return rows.map((row) => row.id);
  }
  if (scope === "cluster") {
    const rows = await sql<{ id: number }[]>`select id from connections where cluster_id = ${scopeId}`;
    return rows.map((row) => row.id);
  }
  if (scope === "group") {
    const rows = await sql<{ id: number }[]>`
      select c.id from connections c join clusters k on k.id = c.cluster_id where k.group_id = ${scopeId}`;
    return rows.map((row) => row.id);
  }
  return [];
}

/** Whether the caller sees at least one connection of the scope (superusers see every scope). */
export async function scopeVisible(
  access: RequestAccess,
  sql: Sql,
  scope: string,
  scopeId: number,
): Promise<boolean> {
  if (await access.isSuperuser()) {
    return true;
  }
  const visible = await access.visibleConnections();
  const members = await connectionsInScope(sql, scope, scopeId);
  return members.some((id) => visible.ids.includes(id));
}

/** The connection ids the caller sees, or undefined when it sees them all. */
export async function visibleConnectionFilter(access: RequestAccess): Promise<number[] | undefined> {
  if (await access.isSuperuser()) {
    return undefined;
  }
  const visible = await access.visibleConnections();
  return visible.all ? undefined : visible.ids;
}
