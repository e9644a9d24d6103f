import { rowsBetween, seconds } from "./metric-sql.js";
import type { MetricDefinition } from "./metrics.js";

/**
 * Rule metrics from the activity sampler's tables (metrics.activity_minutes, activity_ticks and
 * activity_samples; see packages/datastore/src/schema/activity.ts). Their times are the sampler's
 * (`minute`, `sampled_at`), not a probe's `collected_at`: each definition says itself where its
 * latest sample is (`latest`).
 */

/** Minutes the database load is averaged over before it is compared with the host's vCPUs. */
export const LOAD_WINDOW_MINUTES = 5;

/**
 * How far back a session's blocked samples are followed from the range the query reads: the raw
 * samples' default retention. A session blocked for longer reads as blocked this long.
 */
const BLOCKED_LOOKBACK = "1 hour";

/** The sampling interval of activity_sampling unless its probe configuration says otherwise. */
const DEFAULT_TICK_SECONDS = 1;

/** The sampler writes its raw samples once a second. */
const STORE_DELAY_SECONDS = 2;

/** A sampled session waiting for a heavyweight lock another session holds. */
const BLOCKED = "wait_event_type = 'Lock' and cardinality(blocking_pids) > 0";

/**
 * Database load per vCPU: average active sessions over the LOAD_WINDOW_MINUTES minutes up to each
 * sampled minute (samples ÷ ticks, so minutes the sampler missed do not dilute it; ticks without
 * samples are an idle minute), divided by the host's vCPUs: the logical processors of its latest
 * pg_sys_cpu_info snapshot (system_stats, or the collector's own host); a server without one has
 * no load ratio. Above 1: more sessions want to run (on CPU or waiting) than the host has processors.
 *
 * A server's load, once per server (`wholeServer`): the sampler stores each session under the
 * connection of its database, so the samples of every connection of the server are summed, and
 * their ticks, alike for every connection that samples with the server, are taken once (their
 * highest), as the API's load does (`@dbmon/datastore`, queries/activity.ts). Read per connection,
 * a server of a hundred registered databases showed each a hundredth of its load.
 *
 * Computed server by server and minute by minute (laterals: index lookups): the newest
 * minutes are past the statistics of the week's partition (ANALYZE ran before they were stored), so
 * the planner estimates a row or two where a fleet has thousands, and a set-wide join of the minutes
 * with the connections' vCPUs ran once per connection (seconds at 1,000 connections).
 */
export const loadPerVcpu: MetricDefinition = {
  tables: ["activity_ticks", "activity_minutes", "pg_sys_cpu_info"],
  wholeServer: true,
  // Minutes are stored when they close: the latest one is a minute or two old.
  freshnessSeconds: 300,
  latest: `select v.server_connection_id as connection_id, max(a.minute) as collected_at
    from ${rowsBetween("activity_ticks", "minute", "$2")} a
    join public.dbmon_connection_servers v on v.connection_id = a.connection_id
    group by v.server_connection_id`,
  sql: `
  select c.server_connection_id as connection_id, null::text as database_name, null::text as object_name,
    l.minute as collected_at, l.sessions / cpu.vcpus as value
  from (select server_connection_id, array_agg(connection_id) as sources
        from public.dbmon_connection_servers group by server_connection_id) c
  cross join lateral (select logical_processor::float8 as vcpus from metrics.pg_sys_cpu_info
    where connection_id = c.server_connection_id and collected_at <= $1::timestamptz and logical_processor > 0
    order by collected_at desc limit 1) cpu
  cross join lateral (
    select t.minute, sum(coalesce(s.samples, 0)) over w / nullif(sum(t.ticks) over w, 0) as sessions
    from (select minute, max(ticks) as ticks from metrics.activity_ticks
          where connection_id = any(c.sources)
            and minute > $2::timestamptz - make_interval(mins => ${LOAD_WINDOW_MINUTES - 1}) and minute <= $1::timestamptz
          group by minute) t
    cross join lateral (select sum(samples)::float8 as samples from metrics.activity_minutes
      where connection_id = any(c.sources) and minute = t.minute) s
    window w as (order by t.minute range between make_interval(mins => ${LOAD_WINDOW_MINUTES - 1}) preceding and current row)) l
  where l.minute > $2::timestamptz`,
};

/**
 * At each sampled moment, how long the longest-blocked session has been blocked: the time since the
 * first of its consecutive samples (same pid and statement, by query_start) that were blocked; a
 * sample of the statement not blocked ends the run. Sessions are sampled at every tick while they are
 * not idle, so a run is what the sampler saw continuously. Only statements blocked in the range read
 * history, from when they started (up to BLOCKED_LOOKBACK before the range).
 */
export const maxBlockedSeconds: MetricDefinition = {
  tables: ["activity_samples", "activity_ticks"],
  // Bounded by the sampling interval in `latest`; this only caps how far back the latest is looked for
  // (and which statements' history an evaluation reads).
  freshnessSeconds: 300,
  // The sampler stores no row for a tick that finds every session idle: the latest sample is current
  // only while no tick can have passed since without a sample, i.e. within three sampling intervals
  // (60 s ÷ the ticks of the connection's latest complete minute; the sampler's default interval
  // before a minute is complete) plus the second the sampler takes to store its samples.
  latest: `select l.connection_id, l.collected_at
    from (select connection_id, max(sampled_at) as collected_at
          from ${rowsBetween("activity_samples", "sampled_at", "$2")} a group by connection_id) l
    left join lateral (select k.ticks from metrics.activity_ticks k
      where k.connection_id = l.connection_id and k.minute < date_trunc('minute', $1::timestamptz)
      order by k.minute desc limit 1) r on true
    where l.collected_at >= $1::timestamptz
      - make_interval(secs => 3 * coalesce(60.0 / nullif(r.ticks, 0), ${DEFAULT_TICK_SECONDS}) + ${STORE_DELAY_SECONDS})`,
  sql: `
  with statements as (
    select distinct connection_id, pid, query_start
    from ${rowsBetween("activity_samples", "sampled_at", "$2", BLOCKED)} a),
  history as (
    select s.connection_id, s.pid, s.query_start, s.sampled_at, ${BLOCKED} as blocked
    from statements b cross join lateral (
      select * from metrics.activity_samples where connection_id = b.connection_id
        and sampled_at >= greatest(b.query_start, $2::timestamptz - interval '${BLOCKED_LOOKBACK}')
        and sampled_at <= $1::timestamptz and pid = b.pid and query_start is not distinct from b.query_start) s),
  runs as (
    select *, count(*) filter (where not blocked) over (partition by connection_id, pid, query_start order by sampled_at) as run
    from history),
  durations as (
    select connection_id, sampled_at, blocked,
      sampled_at - min(sampled_at) filter (where blocked) over (partition by connection_id, pid, query_start, run) as blocked_for
    from runs)
  select connection_id, null::text as database_name, null::text as object_name, sampled_at as collected_at,
    max(${seconds("blocked_for")}) as value
  from durations where blocked and sampled_at > $2::timestamptz
  group by connection_id, sampled_at`,
};
