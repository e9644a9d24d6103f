import type { Db, Sql } from "@dbmon/datastore";
import { schema } from "@dbmon/datastore";
import { and, asc, eq, inArray, isNull, or } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { ApiError } from "../http/errors.js";

export type GroupRow = typeof schema.clusterGroups.$inferSelect;
export type ClusterRow = typeof schema.clusters.$inferSelect;

export const notFound = {
  group: "Cluster group not found",
  cluster: "Cluster not found",
  connection: "Connection not found",
} as const;

/**
 * What of the cluster hierarchy a caller sees: managers (manage_connections) who can see every
 * connection see everything, empty groups and clusters included; others see the groups and clusters
 * holding a connection they can see.
 */
export interface ClusterScope {
  everything: boolean;
  visible: Set<number>;
  username: string;
}

export async function clusterScope(access: RequestAccess): Promise<ClusterScope> {
  const [caller, visible, manager] = await Promise.all([
    access.requireCaller(),
    access.visibleConnections(),
    access.hasPermission("manage_connections"),
  ]);
  return { everything: visible.all && manager, visible: new Set(visible.ids), username: caller.username };
}

export function presentGroup(row: GroupRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    owner_username: row.ownerUsername,
    is_shared: row.isShared,
    is_default: row.isDefault,
    auto_group_key: row.autoGroupKey,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export function presentCluster(row: ClusterRow) {
  return {
    id: row.id,
    group_id: row.groupId,
    name: row.name,
    description: row.description,
    replication_type: row.replicationType,
    auto_cluster_key: row.autoClusterKey,
    owner_username: row.ownerUsername,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function findGroup(db: Db, id: number): Promise<GroupRow | undefined> {
  const [row] = await db.select().from(schema.clusterGroups).where(eq(schema.clusterGroups.id, id));
  return row;
}

/** A cluster that exists and was not dismissed. */
export async function findCluster(db: Db, id: number): Promise<ClusterRow | undefined> {
  const [row] = await db
    .select()
    .from(schema.clusters)
    .where(and(eq(schema.clusters.id, id), eq(schema.clusters.dismissed, false)));
  return row;
}

/** Ids of the clusters that hold at least one connection the caller can see. */
export async function clustersWithVisibleMembers(db: Db, scope: ClusterScope): Promise<Set<number>> {
  if (scope.visible.size === 0) {
    return new Set();
  }
  const rows = await db
    .selectDistinct({ clusterId: schema.connections.clusterId })
    .from(schema.connections)
    .where(inArray(schema.connections.id, [...scope.visible]));
  return new Set(rows.flatMap((row) => (row.clusterId === null ? [] : [row.clusterId])));
}

export async function clusterVisible(db: Db, scope: ClusterScope, cluster: ClusterRow): Promise<boolean> {
  return (
    scope.everything ||
    cluster.ownerUsername === scope.username ||
    (await clustersWithVisibleMembers(db, scope)).has(cluster.id)
  );
}

/** A cluster the caller may see, or 404 (missing, dismissed, or nothing of it visible). */
export async function visibleCluster(db: Db, scope: ClusterScope, id: number): Promise<ClusterRow> {
  const cluster = await findCluster(db, id);
  if (!cluster || !(await clusterVisible(db, scope, cluster))) {
    throw new ApiError(404, notFound.cluster);
  }
  return cluster;
}

export async function groupVisible(db: Db, scope: ClusterScope, group: GroupRow): Promise<boolean> {
  if (scope.everything || group.ownerUsername === scope.username) {
    return true;
  }
  const visibleClusters = await clustersWithVisibleMembers(db, scope);
  if (visibleClusters.size === 0) {
    return false;
  }
  const inGroup = await db
    .select({ id: schema.clusters.id })
    .from(schema.clusters)
    .where(
      and(
        inArray(schema.clusters.id, [...visibleClusters]),
        eq(schema.clusters.dismissed, false),
        group.isDefault
          ? or(eq(schema.clusters.groupId, group.id), isNull(schema.clusters.groupId))
          : eq(schema.clusters.groupId, group.id),
      ),
    );
  // Unclustered servers show in the default group.
  return inGroup.length > 0 || (group.isDefault && (await hasUnclusteredVisible(db, scope)));
}

async function hasUnclusteredVisible(db: Db, scope: ClusterScope): Promise<boolean> {
  if (scope.visible.size === 0) {
    return false;
  }
  const rows = await db
    .select({ id: schema.connections.id })
    .from(schema.connections)
    .where(and(inArray(schema.connections.id, [...scope.visible]), isNull(schema.connections.clusterId)))
    .limit(1);
  return rows.length > 0;
}

/** A group the caller may see, or 404. */
export async function visibleGroup(db: Db, scope: ClusterScope, id: number): Promise<GroupRow> {
  const group = await findGroup(db, id);
  if (!group || !(await groupVisible(db, scope, group))) {
    throw new ApiError(404, notFound.group);
  }
  return group;
}

/** Its owner may change a group; everybody else needs manage_connections. */
export async function requireGroupWrite(access: RequestAccess, group: GroupRow): Promise<void> {
  const caller = await access.requireCaller();
  if (group.ownerUsername !== caller.username) {
    await access.require({ permission: "manage_connections" });
  }
}

/** True for PostgreSQL's unique-violation error. */
export function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  return (cause as { code?: string })?.code === "23505";
}

export const relationshipTypes = ["streams_from", "subscribes_to", "replicates_with"] as const;
export type RelationshipTypeName = (typeof relationshipTypes)[number];

export interface RelationshipRow {
  id: number;
  cluster_id: number;
  source_connection_id: number;
  target_connection_id: number;
  source_name: string;
  target_name: string;
  relationship_type: RelationshipTypeName;
  is_auto_detected: boolean;
}

/** Relationships of a cluster, of a connection, or both, with the names of both ends. */
export async function listRelationships(
  sql: Sql,
  filter: { clusterId?: number; connectionId?: number },
): Promise<RelationshipRow[]> {
  const cluster = filter.clusterId ?? null;
  const connection = filter.connectionId ?? null;
  return sql<RelationshipRow[]>`
    select r.id, r.cluster_id, r.source_connection_id, r.target_connection_id, s.name as source_name,
      t.name as target_name, r.relationship_type, r.is_auto_detected
    from cluster_node_relationships r
    join connections s on s.id = r.source_connection_id
    join connections t on t.id = r.target_connection_id
    where (${cluster}::int is null or r.cluster_id = ${cluster}::int)
      and (${connection}::int is null
        or r.source_connection_id = ${connection}::int or r.target_connection_id = ${connection}::int)
    order by s.name, t.name, r.relationship_type, r.id`;
}

/** Relationships whose both ends the caller can see. */
export function visibleRelationships(scope: ClusterScope, rows: RelationshipRow[]): RelationshipRow[] {
  return scope.everything
    ? rows
    : rows.filter(
        (row) => scope.visible.has(row.source_connection_id) && scope.visible.has(row.target_connection_id),
      );
}

/** Every cluster the caller can see, by name. */
export async function visibleClusters(db: Db, scope: ClusterScope): Promise<ClusterRow[]> {
  const rows = await db
    .select()
    .from(schema.clusters)
    .where(eq(schema.clusters.dismissed, false))
    .orderBy(asc(schema.clusters.name), asc(schema.clusters.id));
  const withVisible = scope.everything ? undefined : await clustersWithVisibleMembers(db, scope);
  return rows.filter(
    (row) => !withVisible || withVisible.has(row.id) || row.ownerUsername === scope.username,
  );
}
