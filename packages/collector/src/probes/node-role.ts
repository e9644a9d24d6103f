import type { ProbeCollection, ProbeContext, ProbeRow } from "./types.js";

/** Where a replication connection string points: its first host and its port (5432 by default). */
export function conninfoTarget(conninfo: string | null): { host: string | null; port: number | null } {
  if (!conninfo) {
    return { host: null, port: null };
  }
  const values: Record<string, string> = {};
  if (/^postgres(ql)?:\/\//.test(conninfo)) {
    try {
      const url = new URL(conninfo);
      values.host = decodeURIComponent(url.hostname.replace(/^\[|\]$/g, ""));
      if (url.port) {
        values.port = url.port;
      }
      for (const [key, value] of url.searchParams) {
        values[key] = value;
      }
    } catch {
      return { host: null, port: null };
    }
  } else {
    // key=value pairs; values may be single-quoted with backslash escapes.
    const pair = /(\w+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/g;
    for (const match of conninfo.matchAll(pair)) {
      const [, key, quoted, bare] = match;
      if (key) {
        values[key] = quoted !== undefined ? quoted.replace(/\\(.)/g, "$1") : (bare ?? "");
      }
    }
  }
  const host = (values.host || values.hostaddr || "").split(",")[0]?.trim() || null;
  const port = Number.parseInt((values.port ?? "").split(",")[0] ?? "", 10);
  return { host, port: host ? (Number.isInteger(port) && port > 0 ? port : 5432) : null };
}

interface RoleFacts {
  isInRecovery: boolean;
  standbyCount: number;
  isStreamingStandby: boolean;
  publicationCount: number;
  subscriptionCount: number;
  activeLogicalSlotCount: number;
  hasSpock: boolean;
}

/** The role flags of a node and its primary role (the first that applies, in this order). */
export function classifyNode(facts: RoleFacts): { primaryRole: string; flags: string[] } {
  const flags: string[] = [];
  if (facts.standbyCount > 0) {
    flags.push("binary_primary");
  }
  if (facts.isStreamingStandby) {
    flags.push("binary_standby");
  }
  const publishing = facts.publicationCount > 0 && facts.activeLogicalSlotCount > 0;
  if (publishing) {
    flags.push("logical_publisher");
  }
  if (facts.subscriptionCount > 0) {
    flags.push("logical_subscriber");
  }
  const spockNode = facts.hasSpock && !facts.isInRecovery;
  if (spockNode) {
    flags.push("spock_node");
  }
  let primaryRole = "standalone";
  if (spockNode) {
    primaryRole = "spock_node";
  } else if (facts.isInRecovery) {
    primaryRole = facts.standbyCount > 0 ? "binary_cascading" : "binary_standby";
  } else if (facts.standbyCount > 0) {
    primaryRole = "binary_primary";
  } else if (publishing && facts.subscriptionCount > 0) {
    primaryRole = "logical_bidirectional";
  } else if (publishing) {
    primaryRole = "logical_publisher";
  } else if (facts.subscriptionCount > 0) {
    primaryRole = "logical_subscriber";
  }
  return { primaryRole, flags };
}

const STATE_SQL = `select
  pg_is_in_recovery() as is_in_recovery,
  case when has_function_privilege('pg_control_checkpoint()', 'execute')
    then (select timeline_id from pg_control_checkpoint()) end as timeline_id,
  pg_postmaster_start_time() as postmaster_start_time,
  (select count(*)::int from pg_stat_replication r
     left join pg_replication_slots s on s.active_pid = r.pid
     where r.state = 'streaming' and coalesce(s.slot_type, 'physical') = 'physical') as binary_standby_count,
  (select count(*)::int from pg_publication) as publication_count,
  (select count(*)::int from pg_subscription where subdbid = (select oid from pg_database where datname = current_database()))
    as subscription_count,
  -- pg_subscription is shared by all databases: count the workers of this database's subscriptions
  -- only, as subscription_count does, or another database's worker would hide one that is down here.
  (select count(distinct st.subid)::int from pg_stat_subscription st join pg_subscription s on s.oid = st.subid
     where s.subdbid = (select oid from pg_database where datname = current_database())
       and st.relid is null and st.pid is not null) as active_subscription_count,
  (select count(*)::int from pg_replication_slots where slot_type = 'logical' and active) as active_logical_slot_count,
  case when pg_is_in_recovery() then pg_last_wal_replay_lsn()::text end as replayed_lsn,
  coalesce(case when to_regclass('spock.local_node') is not null and to_regclass('spock.node') is not null
      and to_regclass('spock.subscription') is not null
    then has_table_privilege('spock.local_node', 'select') and has_table_privilege('spock.node', 'select')
      and has_table_privilege('spock.subscription', 'select') end, false) as spock_present`;

// flushed_lsn replaced received_lsn in PostgreSQL 13; the JSON form reads whichever exists.
const RECEIVER_SQL = `select sender_host, sender_port,
  coalesce(to_jsonb(w) ->> 'flushed_lsn', to_jsonb(w) ->> 'received_lsn') as received_lsn
from pg_stat_wal_receiver w
where pid is not null
limit 1`;

const SUBSCRIPTION_SQL = `select subconninfo from pg_subscription
where subdbid = (select oid from pg_database where datname = current_database())
order by oid
limit 1`;

const SPOCK_SQL = `select n.node_id::text as node_id, n.node_name::text as node_name,
  (select count(*)::int from spock.subscription s where s.sub_enabled) as subscription_count
from spock.local_node l
join spock.node n on n.node_id = l.node_id
limit 1`;

async function collectNodeRole(context: ProbeContext): Promise<ProbeRow[]> {
  const [state] = await context.query(STATE_SQL);
  if (!state) {
    return [];
  }
  const [receiver] = await context.query(RECEIVER_SQL);
  const subscriptionCount = Number(state.subscription_count);
  // subconninfo is readable by superusers only unless granted.
  const [readable] = await context.query(
    "select has_column_privilege('pg_subscription', 'subconninfo', 'select') as readable",
  );
  const [subscription] =
    subscriptionCount > 0 && readable?.readable ? await context.query(SUBSCRIPTION_SQL) : [];
  const publisher = conninfoTarget((subscription?.subconninfo as string | undefined) ?? null);
  const [spock] = state.spock_present ? await context.query(SPOCK_SQL) : [];

  const standbyCount = Number(state.binary_standby_count);
  const activeLogicalSlotCount = Number(state.active_logical_slot_count);
  const publicationCount = Number(state.publication_count);
  const isInRecovery = Boolean(state.is_in_recovery);
  const hasSpock = spock !== undefined;
  const { primaryRole, flags } = classifyNode({
    isInRecovery,
    standbyCount,
    isStreamingStandby: receiver !== undefined,
    publicationCount,
    subscriptionCount,
    activeLogicalSlotCount,
    hasSpock,
  });
  const details: Record<string, unknown> = {};
  if (publicationCount > 0 || subscriptionCount > 0) {
    details.logical = { publications: publicationCount, subscriptions: subscriptionCount };
  }
  if (spock) {
    details.spock = {
      node_id: Number(spock.node_id),
      node_name: spock.node_name,
      subscription_count: spock.subscription_count,
    };
  }
  return [
    {
      is_in_recovery: isInRecovery,
      timeline_id: state.timeline_id ?? null,
      postmaster_start_time: state.postmaster_start_time,
      has_binary_standbys: standbyCount > 0,
      binary_standby_count: standbyCount,
      is_streaming_standby: receiver !== undefined,
      upstream_host: receiver?.sender_host ?? null,
      upstream_port: receiver?.sender_port ?? null,
      received_lsn: receiver?.received_lsn ?? null,
      replayed_lsn: state.replayed_lsn ?? null,
      publication_count: publicationCount,
      subscription_count: subscriptionCount,
      active_subscription_count: state.active_subscription_count,
      has_active_logical_slots: activeLogicalSlotCount > 0,
      active_logical_slot_count: activeLogicalSlotCount,
      publisher_host: publisher.host,
      publisher_port: publisher.port,
      has_spock: hasSpock,
      spock_node_id: spock ? Number(spock.node_id) : null,
      spock_node_name: spock?.node_name ?? null,
      spock_subscription_count: spock?.subscription_count ?? null,
      primary_role: primaryRole,
      role_flags: flags,
      role_details: details,
    },
  ];
}

/**
 * The server's place in replication: recovery state and timeline, streaming standbys and upstream,
 * publications and subscriptions, and its Spock node when the spock catalog exists. Topology
 * auto-detection reads the latest row of each connection.
 */
export const pgNodeRole: ProbeCollection = {
  name: "pg_node_role",
  collect: collectNodeRole,
};
