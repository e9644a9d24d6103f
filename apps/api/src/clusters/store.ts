import type { Db } from "@dbmon/datastore";
import { schema } from "@dbmon/datastore";
import { and, asc, eq, or, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";

export type GroupRow = typeof schema.clusterGroups.$inferSelect;
export type ClusterRow = typeof schema.clusters.$inferSelect;

export const notFound = {
  group: "Cluster group not found",
  cluster: "Cluster not found",
  connection: "Connection not found",
} as const;

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

/** True for PostgreSQL's unique-violation error. */
export function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause ?? error;
  return (cause as { code?: string })?.code === "23505";
}

export const relationshipTypes = ["streams_from", "subscribes_to", "replicates_with"] as const;
export type RelationshipTypeName = (typeof relationshipTypes)[number];

/** A relationship with the names of both ends, as the API shows it. */
export interface Relationship {
  id: number;
  cluster_id: number;
  source_connection_id: number;
  target_connection_id: number;
  source_name: string;
  target_name: string;
  relationship_type: RelationshipTypeName;
  is_auto_detected: boolean;
}

const r = schema.clusterNodeRelationships;
const source = alias(schema.connections, "source");
const target = alias(schema.connections, "target");

/**
 * Relationships of a cluster, of a connection, or both, with the names of both ends, narrowed by
 * `visibility` (see `relationshipVisibility`).
 */
export async function listRelationships(
  db: Db,
  filter: { clusterId?: number; connectionId?: number },
  visibility?: SQL,
): Promise<Relationship[]> {
  const { clusterId, connectionId } = filter;
  const rows = await db
    .select({
      id: r.id,
      cluster_id: r.clusterId,
      source_connection_id: r.sourceConnectionId,
      target_connection_id: r.targetConnectionId,
      source_name: source.name,
      target_name: target.name,
      relationship_type: r.relationshipType,
      is_auto_detected: r.isAutoDetected,
    })
    .from(r)
    .innerJoin(source, eq(source.id, r.sourceConnectionId))
    .innerJoin(target, eq(target.id, r.targetConnectionId))
    .where(
      and(
        clusterId === undefined ? undefined : eq(r.clusterId, clusterId),
        connectionId === undefined
          ? undefined
          : or(eq(r.sourceConnectionId, connectionId), eq(r.targetConnectionId, connectionId)),
        visibility,
      ),
    )
    .orderBy(asc(source.name), asc(target.name), asc(r.relationshipType), asc(r.id));
  return rows as Relationship[];
}
