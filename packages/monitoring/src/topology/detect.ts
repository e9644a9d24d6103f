import { advisoryLocks } from "@dbmon/datastore";
import type postgres from "postgres";

type Sql = postgres.Sql;

/** What detection knows of one connection: its address and the latest collected node role. */
export interface DetectionNode {
  id: number;
  name: string;
  host: string;
  hostaddr: string | null;
  port: number;
  membershipSource: "auto" | "manual";
  /** Null when no pg_node_role row was collected yet. */
  primaryRole: string | null;
  isInRecovery: boolean;
  isStreamingStandby: boolean;
  hasBinaryStandbys: boolean;
  upstreamHost: string | null;
  upstreamPort: number | null;
  subscriptionCount: number;
  publisherHost: string | null;
  publisherPort: number | null;
  hasSpock: boolean;
  systemIdentifier: string | null;
}

export type RelationshipType = "streams_from" | "subscribes_to" | "replicates_with";

export interface DetectedRelationship {
  source: number;
  target: number;
  type: RelationshipType;
}

export interface DetectedCluster {
  /** `spock:<prefix>`, `binary:<connection id>`, `logical:<publisher id>` or `standalone:<connection id>`. */
  key: string;
  /** Name given when the cluster is first stored; users may rename it. */
  defaultName: string;
  members: number[];
  relationships: DetectedRelationship[];
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1"]);

function sameHost(a: string, b: string): boolean {
  const x = a.toLowerCase().replace(/\.$/, "");
  const y = b.toLowerCase().replace(/\.$/, "");
  return x === y || (LOOPBACK.has(x) && LOOPBACK.has(y));
}

/** The text before the first '-' of a connection name (the whole name without one). */
export function spockPrefix(name: string): string {
  const dash = name.indexOf("-");
  return dash === -1 ? name : name.slice(0, dash);
}

/**
 * Groups connections into clusters from their collected node roles: standbys under their upstream
 * (by address, else by system identifier), Spock nodes by connection-name prefix, physical
 * primaries with their standbys, logical publishers with their subscribers, and every other server
 * on its own. Connections placed manually take no part.
 */
export function detectClusters(allNodes: readonly DetectionNode[]): DetectedCluster[] {
  const nodes = allNodes.filter((node) => node.membershipSource === "auto" && node.primaryRole !== null);
  const find = (host: string | null, port: number | null): DetectionNode | undefined => {
    if (!host || !port) {
      return undefined;
    }
    return nodes.find(
      (node) =>
        node.port === port &&
        (sameHost(node.host, host) ||
          (node.hostaddr !== null && sameHost(node.hostaddr, host)) ||
          sameHost(node.name, host)),
    );
  };

  // 1. Physical parent links.
  const parent = new Map<number, number>();
  for (const node of nodes) {
    const isStandby = node.isStreamingStandby || node.primaryRole === "binary_standby";
    if (!isStandby) {
      continue;
    }
    let upstream = find(node.upstreamHost, node.upstreamPort);
    if (!upstream && node.systemIdentifier) {
      upstream = nodes.find(
        (candidate) =>
          candidate.id !== node.id &&
          candidate.hasBinaryStandbys &&
          !candidate.isInRecovery &&
          candidate.systemIdentifier === node.systemIdentifier,
      );
    }
    if (upstream && upstream.id !== node.id) {
      parent.set(node.id, upstream.id);
    }
  }
  const children = new Map<number, number[]>();
  for (const [child, up] of parent) {
    children.set(up, [...(children.get(up) ?? []), child]);
  }
  const descendants = (id: number, seen = new Set<number>()): number[] => {
    const result: number[] = [];
    for (const child of children.get(id) ?? []) {
      if (!seen.has(child)) {
        seen.add(child);
        result.push(child, ...descendants(child, seen));
      }
    }
    return result;
  };
  const streamsFrom = (members: number[]): DetectedRelationship[] =>
    members.flatMap((id) => {
      const up = parent.get(id);
      return up !== undefined && members.includes(up)
        ? [{ source: id, target: up, type: "streams_from" as const }]
        : [];
    });

  const clusters: DetectedCluster[] = [];
  const assigned = new Map<number, DetectedCluster>();
  const add = (cluster: DetectedCluster) => {
    clusters.push(cluster);
    for (const id of cluster.members) {
      assigned.set(id, cluster);
    }
  };

  // 2. Spock clusters by name prefix.
  const spockGroups = new Map<string, DetectionNode[]>();
  for (const node of nodes) {
    if (node.hasSpock && !node.isInRecovery && !parent.has(node.id)) {
      const prefix = spockPrefix(node.name);
      spockGroups.set(prefix, [...(spockGroups.get(prefix) ?? []), node]);
    }
  }
  for (const [prefix, group] of [...spockGroups].sort(([a], [b]) => a.localeCompare(b))) {
    const spockIds = group.map((node) => node.id).sort((a, b) => a - b);
    const members = [...spockIds, ...spockIds.flatMap((id) => descendants(id))];
    const ha = members.length > spockIds.length;
    const pairs = spockIds.flatMap((a) =>
      spockIds
        .filter((b) => b !== a)
        .map((b) => ({ source: a, target: b, type: "replicates_with" as const })),
    );
    add({
      key: `spock:${prefix}`,
      defaultName: `${prefix} ${ha ? "Spock HA" : "Spock"}`,
      members,
      relationships: [...streamsFrom(members), ...pairs],
    });
  }

  // 3. Physical primaries with standbys.
  for (const node of nodes) {
    if (assigned.has(node.id) || parent.has(node.id) || !children.has(node.id)) {
      continue;
    }
    const members = [node.id, ...descendants(node.id)];
    add({ key: `binary:${node.id}`, defaultName: node.name, members, relationships: streamsFrom(members) });
  }

  // 4. Logical subscribers under their publisher.
  for (const subscriber of nodes) {
    if (subscriber.subscriptionCount <= 0 || parent.has(subscriber.id)) {
      continue;
    }
    const publisher = find(subscriber.publisherHost, subscriber.publisherPort);
    if (!publisher || publisher.id === subscriber.id || parent.has(publisher.id)) {
      continue;
    }
    const subscriberGroup = assigned.get(subscriber.id);
    let cluster = assigned.get(publisher.id);
    if (subscriberGroup && subscriberGroup !== cluster) {
      continue;
    }
    if (!cluster) {
      cluster = {
        key: `logical:${publisher.id}`,
        defaultName: publisher.name,
        members: [publisher.id, ...descendants(publisher.id)],
        relationships: [],
      };
      cluster.relationships.push(...streamsFrom(cluster.members));
      add(cluster);
    }
    if (!subscriberGroup) {
      const joining = [subscriber.id, ...descendants(subscriber.id)];
      cluster.members.push(...joining);
      for (const id of joining) {
        assigned.set(id, cluster);
      }
      cluster.relationships.push(...streamsFrom(cluster.members).filter((r) => joining.includes(r.source)));
    }
    cluster.relationships.push({ source: subscriber.id, target: publisher.id, type: "subscribes_to" });
  }

  // 5. Every other server on its own (a standby whose upstream is not monitored, too).
  for (const node of nodes) {
    if (!assigned.has(node.id)) {
      add({ key: `standalone:${node.id}`, defaultName: node.name, members: [node.id], relationships: [] });
    }
  }
  return clusters;
}

/** Reads what detection needs: every connection with its latest node role and system identifier. */
export async function readDetectionNodes(sql: Sql): Promise<DetectionNode[]> {
  const [tables] = await sql<{ node_role: boolean; server_info: boolean }[]>`
    select to_regclass('metrics.pg_node_role') is not null as node_role,
      to_regclass('metrics.pg_server_info') is not null as server_info`;
  if (!tables?.node_role) {
    return [];
  }
  const systemIdentifier = tables.server_info
    ? sql`(select s.system_identifier from metrics.pg_server_info s
         where s.connection_id = v.server_connection_id order by s.collected_at desc limit 1)`
    : sql`null::text`;
  const rows = await sql<
    {
      id: number;
      name: string;
      host: string;
      hostaddr: string | null;
      port: number;
      membership_source: "auto" | "manual";
      primary_role: string | null;
      is_in_recovery: boolean | null;
      is_streaming_standby: boolean | null;
      has_binary_standbys: boolean | null;
      upstream_host: string | null;
      upstream_port: number | null;
      subscription_count: number | null;
      publisher_host: string | null;
      publisher_port: number | null;
      has_spock: boolean | null;
      system_identifier: string | null;
    }[]
  >`
    select c.id, c.name, c.host, c.hostaddr, c.port, c.membership_source, r.primary_role, r.is_in_recovery,
      r.is_streaming_standby, r.has_binary_standbys, r.upstream_host, r.upstream_port, r.subscription_count,
      r.publisher_host, r.publisher_port, r.has_spock, ${systemIdentifier} as system_identifier
    from connections c
    join dbmon_connection_servers v on v.connection_id = c.id
    left join lateral (
      select * from metrics.pg_node_role n where n.connection_id = c.id order by n.collected_at desc limit 1
    ) r on true
    order by c.id`;
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    host: row.host,
    hostaddr: row.hostaddr,
    port: row.port,
    membershipSource: row.membership_source,
    primaryRole: row.primary_role,
    isInRecovery: row.is_in_recovery ?? false,
    isStreamingStandby: row.is_streaming_standby ?? false,
    hasBinaryStandbys: row.has_binary_standbys ?? false,
    upstreamHost: row.upstream_host,
    upstreamPort: row.upstream_port,
    subscriptionCount: row.subscription_count ?? 0,
    publisherHost: row.publisher_host,
    publisherPort: row.publisher_port,
    hasSpock: row.has_spock ?? false,
    systemIdentifier: row.system_identifier,
  }));
}

export interface RefreshResult {
  /** False when another process was refreshing at the same moment (nothing was done). */
  refreshed: boolean;
  clusters: DetectedCluster[];
}

/**
 * Runs auto-detection and stores its outcome: detected clusters are created in the default group
 * (standalone servers only once a user renamed or moved them), members of auto-managed connections
 * get the cluster and their role, and auto-detected relationships are replaced. Dismissed clusters
 * are never recreated, and names or groups users gave are kept.
 */
export async function refreshClusterTopology(sql: Sql): Promise<RefreshResult> {
  const nodes = await readDetectionNodes(sql);
  const detected = detectClusters(nodes);
  const roles = new Map(nodes.map((node) => [node.id, node.primaryRole]));
  const refreshed = await sql.begin(async (tx) => {
    const [lock] = await tx<
      { locked: boolean }[]
    >`select pg_try_advisory_xact_lock(${advisoryLocks.topologyRefresh}) as locked`;
    if (!lock?.locked) {
      return false;
    }
    const [group] = await tx<{ id: number }[]>`select id from cluster_groups where is_default`;
    const existing = await tx<{ id: number; auto_cluster_key: string; dismissed: boolean }[]>`
      select id, auto_cluster_key, dismissed from clusters where auto_cluster_key is not null`;
    const byKey = new Map(existing.map((row) => [row.auto_cluster_key, row]));
    const membership = new Map<number, number | null>();
    const relationships: { cluster: number; source: number; target: number; type: string }[] = [];
    for (const cluster of detected) {
      let row = byKey.get(cluster.key);
      if (!row && !cluster.key.startsWith("standalone:")) {
        [row] = await tx<{ id: number; auto_cluster_key: string; dismissed: boolean }[]>`
          insert into clusters (auto_cluster_key, name, group_id)
          values (${cluster.key}, ${cluster.defaultName}, ${group?.id ?? null})
          on conflict (auto_cluster_key) do update set auto_cluster_key = excluded.auto_cluster_key
          returning id, auto_cluster_key, dismissed`;
      }
      const clusterId = row && !row.dismissed ? row.id : null;
      for (const member of cluster.members) {
        membership.set(member, clusterId);
      }
      if (clusterId !== null) {
        for (const r of cluster.relationships) {
          relationships.push({ cluster: clusterId, source: r.source, target: r.target, type: r.type });
        }
      }
    }
    const ids = [...membership.keys()];
    const clusterIds = ids.map((id) => membership.get(id) ?? null);
    const roleNames = ids.map((id) => roles.get(id) ?? null);
    if (ids.length > 0) {
      await tx`
        update connections c set cluster_id = m.cluster_id, role = m.role
        from unnest(${ids}::int[], ${clusterIds}::int[], ${roleNames}::text[]) as m(id, cluster_id, role)
        where c.id = m.id and c.membership_source = 'auto'
          and (c.cluster_id is distinct from m.cluster_id or c.role is distinct from m.role)`;
    }
    await tx`
      delete from cluster_node_relationships r
      where r.is_auto_detected and not exists (
        select 1 from unnest(${relationships.map((r) => r.cluster)}::int[], ${relationships.map((r) => r.source)}::int[],
          ${relationships.map((r) => r.target)}::int[], ${relationships.map((r) => r.type)}::text[])
          as d(cluster_id, source, target, type)
        where d.cluster_id = r.cluster_id and d.source = r.source_connection_id
          and d.target = r.target_connection_id and d.type = r.relationship_type)`;
    if (relationships.length > 0) {
      await tx`
        insert into cluster_node_relationships
          (cluster_id, source_connection_id, target_connection_id, relationship_type, is_auto_detected)
        select * , true from unnest(${relationships.map((r) => r.cluster)}::int[],
          ${relationships.map((r) => r.source)}::int[], ${relationships.map((r) => r.target)}::int[],
          ${relationships.map((r) => r.type)}::text[])
        on conflict do nothing`;
    }
    return true;
  });
  return { refreshed, clusters: detected };
}
