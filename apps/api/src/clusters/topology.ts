import type { TopologyServer } from "@dbmon/contract";
import { type Datastore, schema } from "@dbmon/datastore";
import { asc, desc } from "drizzle-orm";
import { type ClusterType, clusterTypeOf, topologyClusterId } from "./refs.js";
import { activeAlertCounts, readServerFacts, readServers, type ServerRow, serverStatus } from "./status.js";
import { listRelationships, type Relationship } from "./store.js";
import type { ClusterScope } from "./visibility.js";

export interface TopologyCluster {
  id: string;
  name: string;
  description: string | null;
  cluster_type: ClusterType;
  replication_type: string | null;
  auto_cluster_key: string | null;
  servers: TopologyServer[];
}

export interface TopologyGroup {
  id: string;
  name: string;
  description: string | null;
  is_default: boolean;
  auto_group_key: string | null;
  clusters: TopologyCluster[];
}

const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);

/**
 * The role the dashboards label a server with: a detected role other than standalone, else the role
 * assigned by hand, else what was detected (as the reference server prefers them).
 */
function primaryRole(detected: string | null, assigned: string | null): string {
  if (detected !== null && detected !== "standalone") {
    return detected;
  }
  return assigned || detected || "unknown";
}

/**
 * Groups → clusters → servers as the navigator shows them. Servers outside any cluster appear on
 * their own (`server-N`) in the default group unless dismissed; standbys appear as children of the
 * server they stream from. Everything is pruned to what the caller can see, and every list is an
 * array.
 */
export async function buildTopology(
  { db, sql }: Pick<Datastore, "db" | "sql">,
  scope: ClusterScope,
): Promise<TopologyGroup[]> {
  const [groups, clusterRows, servers, facts, alerts, relationships] = await Promise.all([
    db
      .select()
      .from(schema.clusterGroups)
      .orderBy(desc(schema.clusterGroups.isDefault), asc(schema.clusterGroups.name)),
    db.select().from(schema.clusters),
    readServers(sql),
    readServerFacts(sql),
    activeAlertCounts(sql),
    listRelationships(db, {}),
  ]);
  const dismissedKeys = new Set(
    clusterRows.filter((c) => c.dismissed && c.autoClusterKey).map((c) => c.autoClusterKey),
  );
  const clusters = clusterRows.filter((c) => !c.dismissed);
  const defaultGroup = groups.find((g) => g.isDefault);
  const visible = (id: number) => scope.everything || scope.visible.has(id);

  const members = new Map<number, ServerRow[]>();
  const loose: ServerRow[] = [];
  const liveClusterIds = new Set(clusters.map((c) => c.id));
  for (const server of servers) {
    if (server.cluster_id !== null && liveClusterIds.has(server.cluster_id)) {
      members.set(server.cluster_id, [...(members.get(server.cluster_id) ?? []), server]);
    } else if (
      !["binary", "standalone", "logical"].some((kind) => dismissedKeys.has(`${kind}:${server.id}`))
    ) {
      loose.push(server);
    }
  }

  const present = (
    server: ServerRow,
    clusterRelationships: Relationship[],
    children: TopologyServer[],
  ): TopologyServer => {
    const fact = facts.get(server.id);
    return {
      id: server.id,
      name: server.name,
      description: server.description ?? "",
      host: server.host,
      port: server.port,
      status: serverStatus(server),
      connection_error: server.connection_error,
      active_alert_count: alerts.get(server.id) ?? 0,
      role: server.role,
      primary_role: primaryRole(fact?.primary_role ?? null, server.role),
      is_expandable: children.length > 0,
      membership_source: server.membership_source,
      owner_username: server.owner_username,
      version: fact?.version ?? null,
      os: fact?.os ?? null,
      platform: fact?.platform ?? null,
      spock_node_name: fact?.spock_node_name ?? null,
      spock_version: fact?.spock_version ?? null,
      database_name: server.database_name,
      username: server.username,
      children,
      relationships: clusterRelationships
        .filter((r) => r.source_connection_id === server.id && visible(r.target_connection_id))
        .map((r) => ({
          target_server_id: r.target_connection_id,
          target_server_name: r.target_name,
          relationship_type: r.relationship_type,
          is_auto_detected: r.is_auto_detected,
        })),
    };
  };

  /** The servers of a cluster as trees: a standby under the member it streams from. */
  const serverTrees = (clusterServers: ServerRow[], clusterRelationships: Relationship[]) => {
    const ids = new Set(clusterServers.map((s) => s.id));
    const upstreamOf = new Map<number, number>();
    for (const r of clusterRelationships) {
      if (
        r.relationship_type === "streams_from" &&
        ids.has(r.target_connection_id) &&
        !upstreamOf.has(r.source_connection_id)
      ) {
        upstreamOf.set(r.source_connection_id, r.target_connection_id);
      }
    }
    // A loop of streams_from links has no top: break it by treating its members as tops.
    const reachesTop = (id: number) => {
      const seen = new Set<number>();
      let current: number | undefined = id;
      while (current !== undefined && upstreamOf.has(current)) {
        if (seen.has(current)) {
          return false;
        }
        seen.add(current);
        current = upstreamOf.get(current);
      }
      return true;
    };
    const isTop = (id: number) => !upstreamOf.has(id) || !reachesTop(id);
    // A server the caller cannot see is left out; its visible standbys take its place.
    const build = (server: ServerRow): TopologyServer[] => {
      const children = clusterServers
        .filter((s) => upstreamOf.get(s.id) === server.id && !isTop(s.id))
        .sort(byName)
        .flatMap(build);
      return visible(server.id) ? [present(server, clusterRelationships, children)] : children;
    };
    return clusterServers
      .filter((s) => isTop(s.id))
      .sort(byName)
      .flatMap(build);
  };

  const topologyClusters = new Map<number | null, TopologyCluster[]>();
  const place = (groupId: number | null, cluster: TopologyCluster) => {
    const key =
      groupId !== null && groups.some((g) => g.id === groupId) ? groupId : (defaultGroup?.id ?? null);
    topologyClusters.set(key, [...(topologyClusters.get(key) ?? []), cluster]);
  };
  for (const cluster of clusters) {
    const clusterServers = members.get(cluster.id) ?? [];
    const clusterRelationships = relationships.filter((r) => r.cluster_id === cluster.id);
    const trees = serverTrees(clusterServers, clusterRelationships);
    const manual = cluster.autoClusterKey === null;
    const keep =
      trees.length > 0 || (manual && (scope.everything || cluster.ownerUsername === scope.username));
    if (!keep) {
      continue;
    }
    const hasStandbys = clusterRelationships.some((r) => r.relationship_type === "streams_from");
    place(cluster.groupId, {
      id: topologyClusterId(cluster.id, cluster.autoClusterKey),
      name: cluster.name,
      description: cluster.description,
      cluster_type: clusterTypeOf(cluster.autoClusterKey, hasStandbys),
      replication_type: cluster.replicationType,
      auto_cluster_key: cluster.autoClusterKey,
      servers: trees,
    });
  }
  for (const server of loose) {
    if (!visible(server.id)) {
      continue;
    }
    place(null, {
      id: `server-${server.id}`,
      name: server.name,
      description: server.description,
      cluster_type: "server",
      replication_type: null,
      auto_cluster_key: `standalone:${server.id}`,
      servers: [present(server, [], [])],
    });
  }

  return groups.flatMap((group) => {
    const groupClusters = (topologyClusters.get(group.id) ?? []).sort(byName);
    const keep = groupClusters.length > 0 || scope.everything || group.ownerUsername === scope.username;
    if (!keep || (!scope.everything && scope.visible.size === 0)) {
      return [];
    }
    return [
      {
        id: `group-${group.id}`,
        name: group.name,
        description: group.description,
        is_default: group.isDefault,
        auto_group_key: group.autoGroupKey,
        clusters: groupClusters,
      },
    ];
  });
}
