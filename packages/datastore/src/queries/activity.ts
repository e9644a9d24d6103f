import type { Sql } from "../datastore.js";
import { ACTIVITY_MINUTE_KEY, type ActivitySampleOf } from "./activity-sample.js";

// Times go to and come from PostgreSQL as text and epochs: Drizzle, sharing the connection pool,
// turns off postgres.js's own conversion of timestamps.

/**
 * Database load from the activity aggregates (`metrics.activity_minutes`, divided by
 * `metrics.activity_ticks`, and their hourly sums `activity_hours` / `activity_hour_ticks` for
 * whole hours): what the API's activity operations, the alerter and the bench all
 * compute. The load of a set of minutes is the average number of active sessions (AAS): the samples
 * of those minutes over the sampling ticks that succeeded in them, so a gap in sampling does not
 * dilute it. Over several connections (a cluster), loads add up: each server's samples are divided
 * by its own ticks.
 *
 * A server is sampled once, and each session is stored under the connection that collects its
 * database (`collectsDatabase`), so a connection's load is read from every connection of its server
 * (`readers` below): each connection answers for the whole server, as if it were the only one
 * monitoring it, and a server counts once in a set however many of its connections the set holds.
 */

/** A session that is not waiting is on CPU (stored as an empty wait event type, presented as "CPU"). */
export const CPU = "CPU";

const waitEventType = `case when m.wait_event_type = '' then '${CPU}' else m.wait_event_type end`;

/**
 * The value a dimension groups by (`key`), and what tells two equal keys apart (`detail`: the wait
 * event type of a wait event, whose names are unique only within their type). Empty stored values
 * (no database, no user, no client address, no query id) are null.
 */
const DIMENSION_SQL = {
  wait_event_type: { key: waitEventType, detail: "null::text" },
  wait_event: {
    key: `case when m.wait_event_type = '' then '${CPU}' else m.wait_event end`,
    detail: waitEventType,
  },
  query: { key: "nullif(m.query_id, 0)::text", detail: "null::text" },
  database: { key: "nullif(m.database_name, '')", detail: "null::text" },
  user: { key: "nullif(m.user_name, '')", detail: "null::text" },
  application: { key: "m.application_name", detail: "null::text" },
  client: { key: "nullif(m.client_addr, '')", detail: "null::text" },
  server: { key: "m.connection_id::text", detail: "null::text" },
} satisfies Record<string, { key: string; detail: string }>;

/** What load can be grouped by (the contract lists the same names for the wire). */
export type ActivityDimension = keyof typeof DIMENSION_SQL;

/**
 * Two rows name the same value of a dimension. Null keys and details are compared as '': no
 * dimension has both a null and an empty value (empty ones are made null, but the application name,
 * which is never null). An equality, unlike `is not distinct from`, lets the planner hash the join.
 */
const sameValue = (a: string, b: string) =>
  `coalesce(${a}.key, '') = coalesce(${b}.key, '') and coalesce(${a}.detail, '') = coalesce(${b}.detail, '')`;

const HOUR_MS = 3_600_000;

/**
 * Which whole hours of a window are read from the hourly sums: [start, end) of them, the minutes
 * before and after from the per-minute rows. `all`: the whole window (buckets of whole hours, so the
 * window is whole hours); `none` (buckets narrower than an hour, which an hour's sum cannot split):
 * no hour (start = end = the window's end); `inside`: the whole hours inside the window, or none
 * when it holds no whole hour.
 */
function hourlySpan(
  window: { start: Date; end: Date },
  hours: "all" | "none" | "inside",
): { start: string; end: string } {
  if (hours === "all") {
    return { start: window.start.toISOString(), end: window.end.toISOString() };
  }
  const start = Math.ceil(window.start.getTime() / HOUR_MS) * HOUR_MS;
  const end = Math.floor(window.end.getTime() / HOUR_MS) * HOUR_MS;
  return hours === "inside" && start < end
    ? { start: new Date(start).toISOString(), end: new Date(end).toISOString() }
    : { start: window.end.toISOString(), end: window.end.toISOString() };
}

/** The columns of a per-minute aggregate row but its minute. */
const MINUTE_COLUMNS = ["connection_id", ...ACTIVITY_MINUTE_KEY, "samples"] as const;

/**
 * The `activity_hours` dimension that answers each dimension: '' (none: per wait event type only)
 * or the `activity_minutes` column whose values it sums by.
 */
const HOUR_DIMENSION: Record<ActivityDimension, string> = {
  wait_event_type: "",
  server: "",
  wait_event: "wait_event",
  query: "query_id",
  database: "database_name",
  user: "user_name",
  application: "application_name",
  client: "client_addr",
};

/**
 * `activity_hours` rows of one dimension in the shape of `activity_minutes` rows: the dimension's
 * column holds the value, the wait event type its own, the other columns are empty.
 */
function hourColumns(dimension: ActivityDimension): string {
  const kept = HOUR_DIMENSION[dimension];
  return MINUTE_COLUMNS.map((column) => {
    if (column === "connection_id" || column === "samples" || column === "wait_event_type") {
      return column;
    }
    if (column === kept) {
      return column === "query_id" ? "value::bigint as query_id" : `value as ${column}`;
    }
    return column === "query_id" ? "0::bigint as query_id" : `''::text as ${column}`;
  }).join(", ");
}

/**
 * The `readers` CTE: every connection whose stored activity the requested connections `$1` read
 * (`source_id`, a connection of the same server: same address), with the requested connection it is
 * read as (`reader_id`: of several requested connections of one server, the lowest id, which answers
 * for the server in the `server` dimension). The ticks of the server's connections are alike (every
 * connection enabled for sampling ticks with the server), so they are taken once: their highest.
 */
const READERS = `readers as (
       select source.connection_id as source_id, min(requested.id) as reader_id
       from unnest($1::int[]) requested(id)
       join public.dbmon_connection_servers reader on reader.connection_id = requested.id
       join public.dbmon_connection_servers source on source.server_connection_id = reader.server_connection_id
       group by source.connection_id)`;

/** A condition on `connection_id` keeping the rows of the readers' sources (an index condition). */
const FROM_SOURCES = "connection_id = any(array(select source_id from readers))";

/**
 * The aggregate rows of the connections `$1` read (READERS, which the statement must define) from
 * `$2` to `$3` (exclusive), as `activity_minutes` rows under their reader's id (the time column
 * named `minute`): the hours from `hours[0]` to `hours[1]` (parameter
 * numbers, see hourlySpan) from `activity_hours`, only the rows of the dimension asked for, and the
 * minutes around them from `activity_minutes`. The sums are equal either way (the collector writes
 * both in one transaction), so a load is the same whichever answers it; a week of one dimension's
 * hours is many times fewer rows than its minutes (for wait event types, a few per connection and
 * hour).
 */
function samplesSource(hours: readonly [number, number], dimension: ActivityDimension): string {
  const [from, to] = hours.map((index) => `$${index}`);
  const columns = MINUTE_COLUMNS.join(", ");
  const kept = MINUTE_COLUMNS.filter((column) => column !== "connection_id").map((column) => `a.${column}`);
  return `(select r.reader_id as connection_id, ${kept.join(", ")}, a.minute from (
       select ${columns}, minute from metrics.activity_minutes
         where ${FROM_SOURCES} and minute >= $2 and minute < ${from}
       union all
       select ${hourColumns(dimension)}, hour from metrics.activity_hours
         where ${FROM_SOURCES} and hour >= ${from} and hour < ${to}
           and dimension = '${HOUR_DIMENSION[dimension]}'
       union all
       select ${columns}, minute from metrics.activity_minutes
         where ${FROM_SOURCES} and minute >= ${to} and minute < $3) a
     join readers r on r.source_id = a.connection_id)`;
}

/** The tick counts matching samplesSource (`connection_id`, `minute`, `ticks`), once per server. */
function ticksSource(hours: readonly [number, number]): string {
  const [from, to] = hours.map((index) => `$${index}`);
  return `(select r.reader_id as connection_id, a.minute, max(a.ticks) as ticks from (
       select connection_id, minute, ticks from metrics.activity_ticks
         where ${FROM_SOURCES} and minute >= $2 and minute < ${from}
       union all
       select connection_id, hour, ticks from metrics.activity_hour_ticks
         where ${FROM_SOURCES} and hour >= ${from} and hour < ${to}
       union all
       select connection_id, minute, ticks from metrics.activity_ticks
         where ${FROM_SOURCES} and minute >= ${to} and minute < $3) a
     join readers r on r.source_id = a.connection_id
     group by 1, 2)`;
}

/** The window and the connections a load is computed over. */
export interface ActivityWindow {
  connectionIds: readonly number[];
  /** Inclusive; minutes are counted from the minute that holds it. */
  start: Date;
  /** Exclusive. */
  end: Date;
}

export interface ActivityLoadRequest extends ActivityWindow {
  /** Width of a bucket in seconds: a positive multiple of 60 (the aggregates are per minute). */
  bucketSeconds: number;
  dimension: ActivityDimension;
  /** How many of the dimension's values get a series of their own; the others are summed as one. */
  seriesLimit: number;
}

/** One value of a dimension: `key` as stored (null for empty), `detail` (a wait event's type). */
export interface DimensionValue {
  key: string | null;
  detail: string | null;
}

export interface LoadSeries extends DimensionValue {
  /** AAS over the whole window. */
  average: number;
  /** AAS per bucket (0 in a sampled bucket without this value, null in a bucket never sampled). */
  points: (number | null)[];
}

export interface ActivityLoad {
  /** Start of each bucket (epoch-aligned to the bucket width), oldest first. */
  bucketStarts: Date[];
  /** AAS per bucket, every value together; null where nothing was sampled. */
  total: (number | null)[];
  /** AAS over the whole window, every value together; null when nothing was sampled. */
  average: number | null;
  /** The `seriesLimit` values with the most load, most first. */
  series: LoadSeries[];
  /** The other values summed, when there are any. */
  other: { average: number; points: (number | null)[] } | null;
}

/** Bucket boundaries: the window's start rounded down, its end rounded up, to whole buckets. */
export function alignedWindow(start: Date, end: Date, bucketSeconds: number): { start: Date; end: Date } {
  const width = bucketSeconds * 1000;
  return {
    start: new Date(Math.floor(start.getTime() / width) * width),
    end: new Date(Math.ceil(end.getTime() / width) * width),
  };
}

/**
 * Load per bucket, grouped by one dimension, in one statement over the aggregates' primary keys
 * (connection, minute, …): at most buckets × (seriesLimit + 1) rows come back, however many
 * minutes and values the window holds.
 */
export async function activityLoad(sql: Sql, request: ActivityLoadRequest): Promise<ActivityLoad> {
  const { bucketSeconds, seriesLimit } = request;
  if (!Number.isInteger(bucketSeconds) || bucketSeconds < 60 || bucketSeconds % 60 !== 0) {
    throw new RangeError("bucketSeconds must be a positive multiple of 60");
  }
  const window = alignedWindow(request.start, request.end, bucketSeconds);
  const bucketCount = Math.max(0, (window.end.getTime() - window.start.getTime()) / 1000 / bucketSeconds);
  const bucketStarts = Array.from(
    { length: bucketCount },
    (_, index) => new Date(window.start.getTime() + index * bucketSeconds * 1000),
  );
  const empty: ActivityLoad = {
    bucketStarts,
    total: bucketStarts.map(() => null),
    average: null,
    series: [],
    other: null,
  };
  if (request.connectionIds.length === 0 || bucketCount === 0) {
    return empty;
  }
  const { key, detail } = DIMENSION_SQL[request.dimension];
  // Buckets of whole hours hold whole hours: the hourly sums answer them all; narrower ones, the minutes.
  const hours = hourlySpan(window, bucketSeconds % 3600 === 0 ? "all" : "none");
  const bucket = (column: string) => `date_bin(make_interval(secs => $4), ${column}, timestamptz 'epoch')`;
  const rows = await sql.unsafe<
    {
      kind: "sampled" | "bucket" | "average";
      bucket: number | null;
      rank: number | null;
      key: string | null;
      detail: string | null;
      load: number;
    }[]
  >(
    `with ${READERS}, ticks as (
       select t.connection_id, ${bucket("t.minute")} as bucket, sum(t.ticks)::float8 as ticks
       from ${ticksSource([6, 7])} t
       where t.ticks > 0
       group by 1, 2
     ), samples as (
       select m.connection_id, ${bucket("m.minute")} as bucket, ${key} as key, ${detail} as detail,
         sum(m.samples)::float8 as samples
       from ${samplesSource([6, 7], request.dimension)} m
       group by 1, 2, 3, 4
     ), window_ticks as (
       select connection_id, sum(ticks) as ticks from ticks group by 1
     ), averages as (
       select s.key, s.detail, sum(s.samples / w.ticks) as load
       from (select connection_id, key, detail, sum(samples) as samples from samples group by 1, 2, 3) s
       join window_ticks w using (connection_id)
       group by 1, 2
     ), ranked as (
       select key, detail, load,
         row_number() over (order by load desc, key collate "C" nulls last, detail collate "C" nulls last) as rank
       from averages
     ), loads as (
       select s.bucket, s.key, s.detail, sum(s.samples / t.ticks) as load
       from samples s join ticks t using (connection_id, bucket)
       group by 1, 2, 3
     ), shown as (
       select l.bucket, case when r.rank <= $5 then r.rank end as rank, l.load
       from loads l join ranked r on ${sameValue("r", "l")}
     )
     select 'sampled' as kind, extract(epoch from bucket)::float8 as bucket, null::int as rank,
       null::text as key, null::text as detail, 0::float8 as load
     from ticks group by bucket
     union all
     select 'bucket', extract(epoch from bucket)::float8, rank::int, null, null, sum(load)
     from shown group by bucket, rank
     union all
     select 'average', null, case when rank <= $5 then rank end::int,
       case when rank <= $5 then key end, case when rank <= $5 then detail end, sum(load)
     from ranked group by 3, 4, 5`,
    [
      request.connectionIds as number[],
      window.start.toISOString(),
      window.end.toISOString(),
      bucketSeconds,
      seriesLimit,
      hours.start,
      hours.end,
    ],
  );
  const indexOf = new Map(bucketStarts.map((start, index) => [start.getTime() / 1000, index]));
  const total: (number | null)[] = bucketStarts.map(() => null);
  for (const row of rows.filter((one) => one.kind === "sampled")) {
    total[indexOf.get(Number(row.bucket)) as number] = 0;
  }
  const averages = rows.filter((row) => row.kind === "average");
  const series: LoadSeries[] = averages
    .filter((row) => row.rank !== null)
    .sort((a, b) => Number(a.rank) - Number(b.rank))
    .map((row) => ({ key: row.key, detail: row.detail, average: row.load, points: [...total] }));
  const otherAverage = averages.find((row) => row.rank === null);
  const other = otherAverage ? { average: otherAverage.load, points: [...total] } : null;
  for (const row of rows.filter((one) => one.kind === "bucket")) {
    const at = indexOf.get(Number(row.bucket)) as number;
    const target = row.rank === null ? other : series[Number(row.rank) - 1];
    if (target) {
      target.points[at] = row.load;
    }
    total[at] = (total[at] ?? 0) + row.load;
  }
  const sampled = total.some((value) => value !== null);
  return {
    bucketStarts,
    total,
    average: sampled ? averages.reduce((sum, row) => sum + row.load, 0) : null,
    series,
    other,
  };
}

export interface ActivityTopRequest extends ActivityWindow {
  dimension: ActivityDimension;
  /** How many values to answer, most load first. */
  limit: number;
}

export interface TopValue extends DimensionValue {
  /** AAS over the window. */
  load: number;
  /** The value's load split by wait event type ("CPU" for sessions not waiting), most first. */
  waits: { waitEventType: string; load: number }[];
}

export interface ActivityTop {
  /** AAS over the window, every value together; null when nothing was sampled. */
  average: number | null;
  values: TopValue[];
}

/**
 * The values of a dimension with the most load over a window (its whole minutes: from the minute
 * that holds its start to the minute that holds its end), each split by wait event type.
 */
export async function activityTop(sql: Sql, request: ActivityTopRequest): Promise<ActivityTop> {
  if (request.connectionIds.length === 0) {
    return { average: null, values: [] };
  }
  const { key, detail } = DIMENSION_SQL[request.dimension];
  const window = alignedWindow(request.start, request.end, 60);
  const hours = hourlySpan(window, "inside");
  const rows = await sql.unsafe<
    {
      rank: number | null;
      key: string | null;
      detail: string | null;
      wait: string | null;
      load: number;
      total: number | null;
    }[]
  >(
    `with ${READERS}, window_ticks as (
       select t.connection_id, sum(t.ticks)::float8 as ticks
       from ${ticksSource([5, 6])} t
       where t.ticks > 0
       group by 1
     ), samples as (
       select m.connection_id, ${key} as key, ${detail} as detail, ${waitEventType} as wait,
         sum(m.samples)::float8 as samples
       from ${samplesSource([5, 6], request.dimension)} m
       group by 1, 2, 3, 4
     ), per_wait as (
       select s.key, s.detail, s.wait, sum(s.samples / w.ticks) as load
       from samples s join window_ticks w using (connection_id)
       group by 1, 2, 3
     ), ranked as (
       select key, detail, sum(load) as load,
         row_number() over (order by sum(load) desc, key collate "C" nulls last, detail collate "C" nulls last) as rank
       from per_wait group by 1, 2
     )
     select r.rank::int as rank, r.key, r.detail, p.wait, p.load, null::float8 as total
     from ranked r join per_wait p on ${sameValue("p", "r")}
     where r.rank <= $4
     union all
     select null, null, null, null, 0, (select sum(load) from per_wait)
     where exists (select 1 from window_ticks)`,
    [
      request.connectionIds as number[],
      window.start.toISOString(),
      window.end.toISOString(),
      request.limit,
      hours.start,
      hours.end,
    ],
  );
  const values: TopValue[] = [];
  let average: number | null = null;
  for (const row of rows) {
    if (row.rank === null) {
      average = row.total ?? 0;
      continue;
    }
    const value = values[row.rank - 1] ?? { key: row.key, detail: row.detail, load: 0, waits: [] };
    values[row.rank - 1] = value;
    value.load += row.load;
    value.waits.push({ waitEventType: row.wait ?? CPU, load: row.load });
  }
  for (const value of values) {
    value.waits.sort((a, b) => b.load - a.load || a.waitEventType.localeCompare(b.waitEventType));
  }
  return { average, values: values.filter(Boolean) };
}

/** A raw sample's session, under the requested connection that answers for its server. */
export interface ActivitySessionRow extends ActivitySampleOf<string> {
  connection_id: number;
  /** RFC 3339 in UTC, like the session's other times. */
  sampled_at: string;
  /** Sessions in the server's sample, however many are returned. */
  session_count: number;
}

export interface ActivitySessionsRequest {
  connectionIds: readonly number[];
  at: Date;
  /** How far from `at` the sample may be. */
  nearestSeconds: number;
  /** Sessions returned at most (in all). */
  limit: number;
  /** Query texts are cut to this many characters. */
  queryChars: number;
}

/**
 * RFC 3339 in UTC, as to_char writes it: timestamps come back from postgres.js as PostgreSQL's text
 * (Drizzle, sharing its pool, turns off its conversion).
 */
const ISO_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

/**
 * Each server's raw sample nearest `at` (READERS: a server once, under the lowest requested
 * connection of it, with the sessions of every connection of it at that moment), ordered to be
 * shown: each server's first session, then the sessions in a lock tree, so that a limit keeps every
 * server's sample time and count and never cuts a tree before other sessions. `truncated` when the
 * limit left sessions out.
 */
export async function activitySessionsNear(
  sql: Sql,
  request: ActivitySessionsRequest,
): Promise<{ rows: ActivitySessionRow[]; truncated: boolean }> {
  if (request.connectionIds.length === 0) {
    return { rows: [], truncated: false };
  }
  // One backward and one forward index walk per stored-under connection (connection_id,
  // sampled_at), then the nearest of them per server.
  const rows = await sql.unsafe<(ActivitySessionRow & { involved: boolean })[]>(
    `with ${READERS}, candidates as (
       select r.reader_id, n.sampled_at
       from readers r
       cross join lateral (
         (select sampled_at from metrics.activity_samples
          where connection_id = r.source_id and sampled_at <= $2
            and sampled_at >= $2::timestamptz - make_interval(secs => $3)
          order by sampled_at desc limit 1)
         union all
         (select sampled_at from metrics.activity_samples
          where connection_id = r.source_id and sampled_at > $2
            and sampled_at <= $2::timestamptz + make_interval(secs => $3)
          order by sampled_at limit 1)) n
     ), nearest as (
       select distinct on (reader_id) reader_id, sampled_at from candidates
       order by reader_id, abs(extract(epoch from sampled_at - $2::timestamptz)), sampled_at
     ), sample as (
       select n.reader_id as connection_id, s.sampled_at, s.pid, s.database_name, s.user_name,
         s.application_name, s.client_addr, s.backend_type, s.state, s.wait_event_type, s.wait_event,
         s.query_id, s.query, s.xact_start, s.query_start, s.state_change, s.blocking_pids
       from nearest n
       join readers r on r.reader_id = n.reader_id
       join metrics.activity_samples s on s.connection_id = r.source_id and s.sampled_at = n.sampled_at
     ), blockers as (
       select distinct connection_id, unnest(blocking_pids) as pid from sample
     ), sessions as (
       select s.*, (cardinality(s.blocking_pids) > 0 or b.pid is not null) as involved,
         count(*) over (partition by s.connection_id)::int as session_count
       from sample s left join blockers b on b.connection_id = s.connection_id and b.pid = s.pid
     ), placed as (
       select *, row_number() over (
         partition by connection_id order by involved desc, query_start nulls last, pid) as place
       from sessions
     )
     select s.connection_id, to_char(s.sampled_at at time zone 'UTC', '${ISO_FORMAT}') as sampled_at, s.pid,
       s.database_name, s.user_name, s.application_name, s.client_addr, s.backend_type, s.state,
       s.wait_event_type, s.wait_event, s.query_id::text as query_id, left(s.query, $4) as query,
       to_char(s.xact_start at time zone 'UTC', '${ISO_FORMAT}') as xact_start,
       to_char(s.query_start at time zone 'UTC', '${ISO_FORMAT}') as query_start,
       to_char(s.state_change at time zone 'UTC', '${ISO_FORMAT}') as state_change,
       s.blocking_pids, s.session_count, s.involved
     from placed s
     order by s.place = 1 desc, s.involved desc, s.connection_id, s.query_start nulls last, s.pid
     limit $5`,
    [
      request.connectionIds as number[],
      request.at.toISOString(),
      request.nearestSeconds,
      request.queryChars,
      request.limit + 1,
    ],
  );
  return {
    rows: rows.slice(0, request.limit).map(({ involved: _, ...row }) => row),
    truncated: rows.length > request.limit,
  };
}

/** The logical processors of a connection's host, and the host they are counted once for. */
export interface HostVcpus {
  vcpus: number;
  /** The connection's host as registered (its address when it has one). */
  host: string;
}

/**
 * The logical processors (vCPUs) of each connection's host, from the latest snapshot of the host
 * probe `pg_sys_cpu_info`; a connection whose host was never collected is absent.
 */
export async function hostVcpus(sql: Sql, connectionIds: readonly number[]): Promise<Map<number, HostVcpus>> {
  if (connectionIds.length === 0) {
    return new Map();
  }
  const [table] = await sql<
    { ok: boolean }[]
  >`select to_regclass('metrics.pg_sys_cpu_info') is not null as ok`;
  if (!table?.ok) {
    return new Map();
  }
  // A snapshot probe stores rows only when they change: its latest snapshot is the one probe_runs names.
  const rows = await sql<{ connection_id: number; vcpus: number; host: string }[]>`
    select conn.id as connection_id, sum(c.logical_processor)::int as vcpus,
      min(coalesce(conn.hostaddr, conn.host)) as host
    from connections conn
    join dbmon_connection_servers v on v.connection_id = conn.id
    join probe_runs r on r.connection_id = v.server_connection_id
    join metrics.pg_sys_cpu_info c
      on c.connection_id = r.connection_id and c.collected_at = r.snapshot_collected_at
    where conn.id = any(${connectionIds as number[]}::int[]) and r.probe_name = 'pg_sys_cpu_info'
      and c.logical_processor > 0
    group by 1`;
  return new Map(rows.map((row) => [row.connection_id, { vcpus: row.vcpus, host: row.host }]));
}

/**
 * The text of each query id, from the newest pg_stat_statements collection of one of the
 * connections that holds it (any connection of the servers of the window's connections), at most a
 * day before `start` and no later than `end`; else from the newest raw activity sample that carries
 * it in the window. Ids found in neither are absent.
 */
export async function queryTexts(
  sql: Sql,
  window: ActivityWindow,
  queryIds: readonly string[],
): Promise<Map<string, string>> {
  if (queryIds.length === 0 || window.connectionIds.length === 0) {
    return new Map();
  }
  const [table] = await sql<
    { ok: boolean }[]
  >`select to_regclass('metrics.pg_stat_statements') is not null as ok`;
  // One backward index walk per connection and id (connection_id, collected_at), stopping at the
  // first match, instead of reading every collection of the window.
  const fromStatements = table?.ok
    ? `select distinct on (q.id) q.id::text as query_id, s.query
       from (select source_id as id from readers) c cross join unnest($2::bigint[]) q(id)
       cross join lateral (
         select query, collected_at from metrics.pg_stat_statements
         where connection_id = c.id and queryid = q.id and collected_at <= $4
           and collected_at >= $3::timestamptz - interval '1 day' and query is not null
         order by collected_at desc limit 1) s
       order by q.id, s.collected_at desc`
    : "select null::text as query_id, null::text as query where false";
  const rows = await sql.unsafe<{ query_id: string; query: string }[]>(
    `with ${READERS}, statements as (${fromStatements}),
     sampled as (
       select distinct on (q.id) q.id::text as query_id, s.query
       from (select source_id as id from readers) c cross join unnest($2::bigint[]) q(id)
       cross join lateral (
         select query, sampled_at from metrics.activity_samples
         where connection_id = c.id and query_id = q.id and sampled_at >= $3 and sampled_at < $4
           and query is not null
         order by sampled_at desc limit 1) s
       where q.id::text not in (select query_id from statements)
       order by q.id, s.sampled_at desc)
     select query_id, query from statements union all select query_id, query from sampled`,
    [
      window.connectionIds as number[],
      queryIds as string[],
      window.start.toISOString(),
      window.end.toISOString(),
    ],
  );
  return new Map(rows.map((row) => [row.query_id, row.query]));
}
