import { type Db, schema } from "@dbmon/datastore";
import { type AnyColumn, and, eq, exists, isNull, or, type SQL, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { oneOf } from "../auth/visibility.js";

const { clusters, clusterGroups, connections, clusterNodeRelationships } = schema;

/**
 * What of the cluster hierarchy a caller sees: managers (manage_connections) who can see every
 * connection see everything, empty groups and clusters included; others see the groups and clusters
 * holding a connection they can see, and those they own.
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

/** `column` is one of the caller's visible connections. */
function visibleConnection(scope: ClusterScope, column: AnyColumn): SQL {
  return oneOf(column, scope.visible);
}

/** A connection the caller can see is a member of the cluster in `clusterId`. */
function hasVisibleMember(db: Db, scope: ClusterScope, clusterId: AnyColumn): SQL {
  return exists(
    db
      .select({ one: sql`1` })
      .from(connections)
      .where(and(eq(connections.clusterId, clusterId), visibleConnection(scope, connections.id))),
  );
}

/**
 * The clusters (rows of `clusters`) the caller sees: those it owns and those holding a connection
 * it can see. Undefined when nothing is hidden.
 */
export function clusterVisibility(db: Db, scope: ClusterScope): SQL | undefined {
  if (scope.everything) {
    return undefined;
  }
  return or(eq(clusters.ownerUsername, scope.username), hasVisibleMember(db, scope, clusters.id));
}

/**
 * The groups (rows of `cluster_groups`) the caller sees: those it owns and those holding a live
 * cluster with a connection it can see. Unclustered servers show in the default group, so a visible
 * one makes the default group visible. Undefined when nothing is hidden.
 */
export function groupVisibility(db: Db, scope: ClusterScope): SQL | undefined {
  if (scope.everything) {
    return undefined;
  }
  const inGroup = or(
    eq(clusters.groupId, clusterGroups.id),
    and(eq(clusterGroups.isDefault, true), isNull(clusters.groupId)),
  );
  const visibleCluster = exists(
    db
      .select({ one: sql`1` })
      .from(clusters)
      .where(and(eq(clusters.dismissed, false), inGroup, hasVisibleMember(db, scope, clusters.id))),
  );
  const visibleUnclustered = and(
    eq(clusterGroups.isDefault, true),
    exists(
      db
        .select({ one: sql`1` })
        .from(connections)
        .where(and(isNull(connections.clusterId), visibleConnection(scope, connections.id))),
    ),
  );
  return or(eq(clusterGroups.ownerUsername, scope.username), visibleCluster, visibleUnclustered);
}

/** Relationships whose both ends the caller can see. Undefined when nothing is hidden. */
export function relationshipVisibility(scope: ClusterScope): SQL | undefined {
  if (scope.everything) {
    return undefined;
  }
  return and(
    visibleConnection(scope, clusterNodeRelationships.sourceConnectionId),
    visibleConnection(scope, clusterNodeRelationships.targetConnectionId),
  );
}
