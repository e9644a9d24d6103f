import type { Sql } from "@dbmon/datastore";
import { NotFound } from "../errors.js";
import { notFound } from "./store.js";

export interface ConnectionClusterInfo {
  cluster_id: number | null;
  role: string | null;
  membership_source: "auto" | "manual";
  cluster_name: string | null;
  replication_type: string | null;
  auto_cluster_key: string | null;
}

/** A connection's cluster membership, or 404. */
export async function connectionClusterInfo(sql: Sql, connectionId: number): Promise<ConnectionClusterInfo> {
  const [row] = await sql<ConnectionClusterInfo[]>`
    select c.cluster_id, c.role, c.membership_source, k.name as cluster_name, k.replication_type,
      k.auto_cluster_key
    from connections c
    left join clusters k on k.id = c.cluster_id
    where c.id = ${connectionId}`;
  if (!row) {
    throw new NotFound(notFound.connection);
  }
  return row;
}

/** Where a connection sits, with names: its cluster and group (null where it has none). */
export interface ConnectionHierarchy {
  serverName: string;
  clusterId: number | null;
  clusterName: string | null;
  groupId: number | null;
  groupName: string | null;
}

/** A connection's hierarchy, or undefined for a connection that does not exist. */
export async function connectionHierarchy(
  sql: Sql,
  connectionId: number,
): Promise<ConnectionHierarchy | undefined> {
  const [row] = await sql<ConnectionHierarchy[]>`
    select c.name as "serverName", k.id as "clusterId", k.name as "clusterName", k.group_id as "groupId",
      g.name as "groupName"
    from connections c
    left join clusters k on k.id = c.cluster_id
    left join cluster_groups g on g.id = k.group_id
    where c.id = ${connectionId}`;
  return row;
}

export interface MembershipChange {
  cluster_id: number | null;
  role?: string | null | undefined;
  membership_source?: "auto" | "manual" | undefined;
}

/**
 * Places a connection in a cluster with the given source (auto by default), or, with no cluster and
 * a source other than manual, hands it back to auto-detection. Relationships it had in a cluster it
 * leaves are removed.
 */
export async function changeMembership(
  sql: Sql,
  connectionId: number,
  change: MembershipChange,
): Promise<void> {
  await connectionClusterInfo(sql, connectionId);
  if (change.cluster_id !== null) {
    const [cluster] = await sql`select 1 from clusters where id = ${change.cluster_id} and not dismissed`;
    if (!cluster) {
      throw new NotFound(notFound.cluster);
    }
  }
  const source = change.membership_source ?? "auto";
  await sql.begin(async (tx) => {
    if (change.cluster_id === null && source !== "manual") {
      await tx`update connections set cluster_id = null, membership_source = 'auto' where id = ${connectionId}`;
    } else {
      const role = change.role === undefined ? null : change.role;
      await tx`
        update connections set cluster_id = ${change.cluster_id}, role = ${role}, membership_source = ${source}
        where id = ${connectionId}`;
    }
    await tx`
      delete from cluster_node_relationships
      where (source_connection_id = ${connectionId} or target_connection_id = ${connectionId})
        and cluster_id is distinct from ${change.cluster_id}::int`;
  });
}
