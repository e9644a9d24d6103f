import {
  MAX_TIMELINE_WINDOW_DAYS,
  TIMELINE_EVENT_TYPES,
  type TimelineEventSchema,
  type TimelineEventType,
} from "@dbmon/contract";
import { type Datastore, readableNumberSql } from "@dbmon/datastore";
import { findProbeSpec, HEALTH_CHECKS, rowSources, sourceRowCondition } from "@dbmon/monitoring";
import type { z } from "@hono/zod-openapi";
import type { RequestAccess } from "../auth/access.js";
import { alertSeenThrough } from "../auth/visibility.js";
import { InvalidInput } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Page } from "../paging.js";

export type TimelineEvent = z.output<typeof TimelineEventSchema>;

/** Which events to list: those of a window, optionally of some connections and types only. */
export interface TimelineFilter {
  start: Date;
  end: Date;
  /** Only these connections (those the caller cannot see are left out); absent: every visible one. */
  connectionIds?: readonly number[] | undefined;
  /** Only these types, each one of `TIMELINE_EVENT_TYPES`; absent or empty: every type. */
  eventTypes?: readonly string[] | undefined;
}

export interface TimelinePage {
  events: TimelineEvent[];
  /** All the events that match, whatever the page. */
  total: number;
}
const DAY_MS = 86_400_000;

/*
 * Every source below is one SELECT of the same columns: id, event_type, connection_id, at (when it
 * happened), severity, title, summary, details (json). Their parameters: $1 the connections whose
 * events to include (null: all), $2 and $3 the window; `visible.ids` holds the connections the caller
 * can see, or null when every scope is visible (superusers), and `lock_storm.sessions` the sessions
 * blocked at once that make a lock storm.
 */

/** Whether a connection is one whose events to include ($1; null for every one). */
const selected = (column: string) => `($1::int[] is null or ${column} = any($1::int[]))`;
/** Epoch seconds of a timestamp, as event ids carry them. */
const epoch = (column: string) => `floor(extract(epoch from ${column}))::bigint`;
/** RFC 3339 text of a timestamp, as every time on the wire is written. */
const text = (column: string) => `to_json(${column}) #>> '{}'`;
interface SnapshotSource {
  type: TimelineEventType;
  table: string;
  /** Identifies an entry of a snapshot (SQL over the table's columns). */
  key: string;
  /** Values compared between consecutive snapshots (SQL producing json). */
  value: string;
  title: string;
  noun: string;
  prefix: string;
}

const SNAPSHOT_SOURCES: SnapshotSource[] = [
  {
    type: "config_change",
    table: "pg_settings",
    key: "name",
    value: "to_json(setting)",
    title: "Configuration Changed",
    noun: "settings",
    prefix: "config",
  },
  {
    type: "hba_change",
    table: "pg_hba_file_rules",
    key: "rule_number::text",
    value:
      "json_build_object('type', type, 'database', database, 'user_name', user_name, 'address', address, 'auth_method', auth_method)",
    title: "HBA Configuration Changed",
    noun: "rules",
    prefix: "hba",
  },
  {
    type: "ident_change",
    table: "pg_ident_file_mappings",
    key: "map_number::text",
    value: "json_build_object('map_name', map_name, 'sys_name', sys_name, 'pg_username', pg_username)",
    title: "Ident Mappings Changed",
    noun: "mappings",
    prefix: "ident",
  },
  {
    type: "extension_change",
    table: "pg_extension",
    key: "database_name || '.' || extname",
    value: "to_json(extversion)",
    title: "Extensions Changed",
    noun: "extensions",
    prefix: "extension",
  },
];

/**
 * Differences between each stored snapshot and the one before it (snapshots are stored only when
 * something changed): entries added, removed or modified, keyed as the source says.
 */
function snapshotEvents(source: SnapshotSource): string {
  const table = `metrics.${source.table}`;
  // Each connection's snapshots where they are stored: its server's, its own, or per database
  // under the connection that collects the database (`rowSources`).
  const spec = findProbeSpec(source.table);
  if (!spec) {
    throw new Error(`timeline: no probe ${source.table}`);
  }
  const read = sourceRowCondition(spec, "t", "s");
  return `
    select '${source.prefix}-' || e.connection_id || '-' || ${epoch("e.collected_at")} as id,
      '${source.type}'::text as event_type, e.connection_id, e.collected_at as at, 'info'::text as severity,
      '${source.title}'::text as title,
      'Changed ' || json_array_length(e.changes) || ' ${source.noun}' as summary,
      json_build_object('change_count', json_array_length(e.changes), 'changes', e.changes) as details
    from (
      with snapshots as (
        select src.*, s.collected_at,
          lag(s.collected_at) over (partition by src.connection_id, src.source_id order by s.collected_at) as previous
        from ${rowSources(spec, `array(select id from public.connections where ${selected("id")})`)} src
        cross join lateral (select distinct collected_at from ${table}
              where connection_id = src.source_id and collected_at <= $3::timestamptz) s
      )
      select s.connection_id, s.collected_at,
        json_agg(json_build_object('name', d.name, 'old_value', d.old_value, 'new_value', d.new_value,
          'change_type', d.change_type) order by d.name) as changes
      from snapshots s
      cross join lateral (
        select coalesce(n.k, o.k) as name, o.v as old_value, n.v as new_value,
          case when o.k is null then 'added' when n.k is null then 'removed' else 'modified' end as change_type
        from (select ${source.key} as k, ${source.value} as v from ${table} t
              where t.connection_id = s.source_id and t.collected_at = s.collected_at and ${read}) n
        full join (select ${source.key} as k, ${source.value} as v from ${table} t
              where t.connection_id = s.source_id and t.collected_at = s.previous and ${read}) o on o.k = n.k
        where n.v::text is distinct from o.v::text
      ) d
      where s.previous is not null and s.collected_at >= $2::timestamptz
      group by s.connection_id, s.collected_at
    ) e`;
}

/** A new postmaster start time between two samples; it happened when the server says it came up. */
const RESTART_EVENTS = `
  select 'restart-' || connection_id || '-' || ${epoch("postmaster_start_time")} as id,
    'restart'::text as event_type, connection_id, postmaster_start_time as at, 'warning'::text as severity,
    'Server Restart Detected'::text as title,
    'Server restarted at ' || (${text("postmaster_start_time")}) as summary,
    json_build_object('previous_start_time', ${text("previous")},
      'postmaster_start_time', ${text("postmaster_start_time")}, 'detected_at', ${text("collected_at")}) as details
  from (
    select connection_id, collected_at, postmaster_start_time,
      lag(postmaster_start_time) over (partition by connection_id order by collected_at) as previous
    from metrics.pg_node_role
    where ${selected("connection_id")} and collected_at <= $3::timestamptz
  ) samples
  where previous is not null and postmaster_start_time is distinct from previous
    and collected_at >= $2::timestamptz`;

/**
 * Lock storms from the active session history's raw samples: per connection and minute, the sampled
 * moment with the most sessions blocked by another's lock (the first of equals), when they are at
 * least the threshold. The blocker named is the session that blocked the most of them among
 * those not blocked themselves (the head of a chain), else the one that blocked the most; what it
 * was doing at that moment is in the details when it was sampled (it is, unless it was idle).
 * Raw samples are kept a short time (an hour by default): for a minute whose raw samples are gone,
 * the per-minute aggregates still tell the sessions waiting on a Lock on average over the minute
 * (samples ÷ ticks), a storm when that average is at least the threshold (so a short peak no longer
 * shows), without a blocker; `details.source` says which.
 */
const LOCK_STORM_EVENTS = `
  select 'lock-storm-' || m.connection_id || '-' || ${epoch("m.minute")} as id, 'lock_storm'::text as event_type,
    m.connection_id, m.sampled_at as at, 'warning'::text as severity, 'Lock Storm'::text as title,
    m.blocked || ' sessions blocked' || coalesce(' by pid ' || b.pid || coalesce(' (' || h.user_name || ')', ''), '') as summary,
    json_build_object('source', 'samples', 'blocked_sessions', m.blocked, 'threshold', (select sessions from lock_storm),
      'sampled_at', ${text("m.sampled_at")},
      'blocker', case when b.pid is null then null else json_build_object('pid', b.pid, 'blocked_sessions', b.blocking,
        'database_name', h.database_name, 'user_name', h.user_name, 'application_name', h.application_name,
        'client_addr', h.client_addr, 'state', h.state, 'wait_event_type', h.wait_event_type,
        'wait_event', h.wait_event, 'query', h.query, 'xact_start', ${text("h.xact_start")}) end) as details
  from (
    select distinct on (connection_id, date_trunc('minute', sampled_at)) connection_id,
      date_trunc('minute', sampled_at) as minute, sampled_at, blocked
    from (
      select connection_id, sampled_at, count(*) filter (where cardinality(blocking_pids) > 0)::int as blocked
      from metrics.activity_samples
      where ${selected("connection_id")} and sampled_at between $2::timestamptz and $3::timestamptz
      group by connection_id, sampled_at
    ) moments
    where blocked >= (select sessions from lock_storm)
    order by connection_id, date_trunc('minute', sampled_at), blocked desc, sampled_at
  ) m
  left join lateral (
    select p.pid, count(*)::int as blocking
    from metrics.activity_samples w cross join unnest(w.blocking_pids) as p(pid)
    left join metrics.activity_samples q on q.connection_id = w.connection_id and q.sampled_at = w.sampled_at
      and q.pid = p.pid
    where w.connection_id = m.connection_id and w.sampled_at = m.sampled_at
    group by p.pid, coalesce(cardinality(q.blocking_pids), 0) > 0
    order by coalesce(cardinality(q.blocking_pids), 0) > 0, count(*) desc, p.pid
    limit 1
  ) b on true
  left join metrics.activity_samples h on h.connection_id = m.connection_id and h.sampled_at = m.sampled_at
    and h.pid = b.pid
  union all
  select 'lock-storm-' || t.connection_id || '-' || ${epoch("t.minute")}, 'lock_storm'::text, t.connection_id,
    t.minute, 'warning'::text, 'Lock Storm'::text,
    round((l.waiting / t.ticks)::numeric, 1) || ' sessions blocked on average over the minute',
    json_build_object('source', 'minutes', 'blocked_sessions', round((l.waiting / t.ticks)::numeric, 1)::float8,
      'threshold', (select sessions from lock_storm), 'sampled_at', null, 'blocker', null)
  from (select connection_id, minute, sum(samples)::float8 as waiting from metrics.activity_minutes
        where ${selected("connection_id")} and wait_event_type = 'Lock'
          and minute between $2::timestamptz and $3::timestamptz
        group by connection_id, minute) l
  join metrics.activity_ticks t on t.connection_id = l.connection_id and t.minute = l.minute and t.ticks > 0
  where l.waiting / t.ticks >= (select sessions from lock_storm)
    and not exists (select 1 from metrics.activity_samples s where s.connection_id = t.connection_id
      and s.sampled_at >= t.minute and s.sampled_at < t.minute + interval '1 minute')`;

/** Blackouts the caller may know of: estate ones, and others through a connection it can see. */
const VISIBLE_BLACKOUT = `
  (b.scope <> 'server' or ${selected("b.connection_id")})
  and ((select ids from visible) is null or b.scope in ('estate', 'server')
    or (b.scope = 'cluster' and exists (
      select 1 from connections c, visible v where c.cluster_id = b.cluster_id and c.id = any(v.ids)))
    or (b.scope = 'group' and exists (
      select 1 from connections c join clusters k on k.id = c.cluster_id, visible v
      where k.group_id = b.group_id and c.id = any(v.ids))))`;

const blackoutEvents = (type: "blackout_started" | "blackout_ended") => {
  const [column, prefix, title] =
    type === "blackout_started"
      ? ["b.start_time", "start", "Blackout Started"]
      : ["b.end_time", "end", "Blackout Ended"];
  return `
    select 'blackout-${prefix}-' || b.id as id, '${type}'::text as event_type,
      case when b.scope = 'server' then coalesce(b.connection_id, 0) else 0 end as connection_id,
      ${column} as at, 'info'::text as severity, '${title}'::text as title, coalesce(b.reason, '') as summary,
      json_build_object('blackout_id', b.id::text, 'scope', b.scope, 'reason', b.reason,
        'created_by', b.created_by, 'end_time', ${text("b.end_time")}) as details
    from blackouts b
    where ${VISIBLE_BLACKOUT} and ${column} between $2::timestamptz and $3::timestamptz`;
};

/** SQL text literal of a constant. */
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Changes of a health check's status, as the alerter's pass recorded them. */
const HEALTH_CHECK_EVENTS = `
  select 'health-' || h.id as id, 'health_check_changed'::text as event_type, h.connection_id, h.changed_at as at,
    case when h.status = 'ok' then 'info' else h.status end as severity,
    'Health Check ' || case when h.status = 'ok' then 'Recovered' else 'Degraded' end || ': ' || d.title as title,
    d.title || ' went from ' || h.previous_status || ' to ' || h.status as summary,
    json_build_object('check', h.check_name, 'previous_status', h.previous_status, 'status', h.status,
      'value', ${readableNumberSql("h.value")}, 'unit', d.unit) as details
  from health_check_changes h
  join (values ${HEALTH_CHECKS.map((check) => `(${literal(check.name)}, ${literal(check.title)}, ${literal(check.unit)})`).join(", ")})
    as d(name, title, unit) on d.name = h.check_name
  where ${selected("h.connection_id")} and h.changed_at between $2::timestamptz and $3::timestamptz`;

/**
 * Alerts as the events below read them: each with `seen_id`, the connection of $1 it is seen through
 * (`alertSeenThrough`: a whole-server alert through any connection of its server), and only those seen.
 */
const SEEN_ALERTS = `(select * from (select a.*, ${alertSeenThrough("a", "$1::int[]")} as seen_id from alerts a) a
  where a.seen_id is not null)`;

/** Events read from the tables of the alerting feature and the alerter (alerts, acknowledgments, blackouts, health checks). */
const ALERTING_SOURCES: Partial<Record<TimelineEventType, string>> = {
  alert_fired: `
    select 'alert-fired-' || a.id || '-' || ${epoch("a.triggered_at")} as id, 'alert_fired'::text as event_type,
      a.seen_id as connection_id, a.triggered_at as at, a.severity, 'Alert Fired: ' || a.title as title,
      coalesce(nullif(a.description, ''), a.title) as summary,
      json_build_object('alert_id', a.id, 'alert_type', a.alert_type, 'severity', a.severity, 'status', a.status,
        'metric_name', a.metric_name, 'metric_value', ${readableNumberSql("a.metric_value")}, 'metric_unit', r.metric_unit,
        'threshold_value', a.threshold_value, 'operator', a.operator, 'database_name', a.database_name,
        'probe_name', a.probe_name) as details
    from ${SEEN_ALERTS} a left join alert_rules r on r.id = a.rule_id
    where a.triggered_at between $2::timestamptz and $3::timestamptz`,
  alert_cleared: `
    select 'alert-cleared-' || a.id || '-' || ${epoch("a.cleared_at")} as id, 'alert_cleared'::text as event_type,
      a.seen_id as connection_id, a.cleared_at as at, 'info'::text as severity, 'Alert Cleared: ' || a.title as title,
      a.title as summary,
      json_build_object('alert_id', a.id::text, 'severity', a.severity, 'duration_seconds',
        extract(epoch from date_trunc('milliseconds', a.cleared_at) - date_trunc('milliseconds', a.triggered_at))::float8)
        as details
    from ${SEEN_ALERTS} a
    where a.cleared_at between $2::timestamptz and $3::timestamptz`,
  alert_acknowledged: `
    select 'alert-ack-' || k.alert_id || '-' || ${epoch("k.acknowledged_at")} as id,
      'alert_acknowledged'::text as event_type, a.seen_id as connection_id, k.acknowledged_at as at, 'info'::text as severity,
      case when k.false_positive then 'Alert Marked False Positive: ' else 'Alert Acknowledged: ' end || a.title
        as title,
      coalesce(k.message, a.title) as summary,
      json_build_object('alert_id', k.alert_id::text, 'acknowledged_by', k.acknowledged_by,
        'false_positive', coalesce(k.false_positive, false), 'message', k.message) as details
    from alert_acknowledgments k join ${SEEN_ALERTS} a on a.id = k.alert_id
    where k.acknowledged_at between $2::timestamptz and $3::timestamptz`,
  blackout_started: blackoutEvents("blackout_started"),
  blackout_ended: blackoutEvents("blackout_ended"),
  health_check_changed: HEALTH_CHECK_EVENTS,
};

/**
 * The estate's timeline, derived on each request from collected configuration snapshots, server
 * restarts, alerts, blackouts and changes of health checks' status. One query filters by the caller's connections, orders and pages.
 */
export class Timeline {
  constructor(
    private readonly deps: {
      datastore: Datastore;
      logger: Logger;
      /** Sessions blocked at one sampled moment that make a lock storm (DBMON_LOCK_STORM_SESSIONS). */
      lockStormSessions: number;
    },
  ) {}

  /**
   * Events of the window, newest first, on the connections the caller can see: one page, filtered
   * and paged in SQL, and the total of all that match.
   */
  async list(access: RequestAccess, filter: TimelineFilter, page: Page): Promise<TimelinePage> {
    if (filter.end <= filter.start) {
      throw new InvalidInput("end_time must be after start_time");
    }
    if (filter.end.getTime() - filter.start.getTime() > MAX_TIMELINE_WINDOW_DAYS * DAY_MS) {
      throw new InvalidInput(
        `The window from start_time to end_time may span at most ${MAX_TIMELINE_WINDOW_DAYS} days`,
      );
    }
    const known = new Set<string>(TIMELINE_EVENT_TYPES);
    for (const type of filter.eventTypes ?? []) {
      if (!known.has(type)) {
        throw new InvalidInput(`Invalid event_type: ${type}`);
      }
    }
    const types = new Set(
      (filter.eventTypes?.length ? filter.eventTypes : TIMELINE_EVENT_TYPES) as TimelineEventType[],
    );
    const [visible, superuser] = await Promise.all([access.visibleConnections(), access.isSuperuser()]);
    const readable = new Set(visible.ids);
    // Connections the caller cannot see are left out, as alerts are; null when nothing is.
    const ids = filter.connectionIds
      ? filter.connectionIds.filter((id) => visible.all || readable.has(id))
      : visible.all
        ? null
        : [...readable];
    return this.read({
      connectionIds: ids,
      visibleIds: superuser ? null : visible.ids,
      start: filter.start,
      end: filter.end,
      page,
      types,
    });
  }

  /**
   * Events of the window, newest first, without a caller: on `connectionIds` (null: all), with
   * blackouts of clusters and groups limited to `visibleIds` (null: every one). What the overview's
   * snapshots read too.
   */
  async read(options: {
    connectionIds: number[] | null;
    visibleIds: number[] | null;
    start: Date;
    end: Date;
    page: Page;
    types?: ReadonlySet<TimelineEventType>;
  }): Promise<TimelinePage> {
    const types = options.types ?? new Set(TIMELINE_EVENT_TYPES);
    const params = [
      options.connectionIds,
      options.start.toISOString(),
      options.end.toISOString(),
      options.page.limit,
      options.visibleIds,
      options.page.offset,
      this.deps.lockStormSessions,
    ];
    const collected = await this.collectedSources(types);
    const alerting = TIMELINE_EVENT_TYPES.flatMap((type) => {
      const source = ALERTING_SOURCES[type];
      return source && types.has(type) ? [source] : [];
    });
    try {
      return await this.page([...collected, ...alerting], params);
    } catch (error) {
      if (alerting.length === 0) {
        throw error;
      }
      // Tables of another feature: a layout other than the one assumed is logged, not fatal.
      this.deps.logger.warn({ err: error }, "timeline: reading alerts or blackouts failed");
      return this.page(collected, params);
    }
  }

  /** The sources over metric tables the collectors have created so far (one query). */
  private async collectedSources(types: ReadonlySet<TimelineEventType>): Promise<string[]> {
    const wanted = [
      ...SNAPSHOT_SOURCES.filter((source) => types.has(source.type)).map((source) => ({
        table: `metrics.${source.table}`,
        select: snapshotEvents(source),
      })),
      ...(types.has("restart") ? [{ table: "metrics.pg_node_role", select: RESTART_EVENTS }] : []),
      ...(types.has("lock_storm") ? [{ table: "metrics.activity_samples", select: LOCK_STORM_EVENTS }] : []),
    ];
    if (wanted.length === 0) {
      return [];
    }
    const present = await this.deps.datastore.sql<{ name: string }[]>`
      select name from unnest(${wanted.map((source) => source.table)}::text[]) as name
      where to_regclass(name) is not null`;
    const names = new Set(present.map((row) => row.name));
    return wanted.filter((source) => names.has(source.table)).map((source) => source.select);
  }

  /**
   * One page of the union of the sources, newest first, with the count of all of them (also when
   * the page is past the last event: the count is the one row every answer has).
   */
  private async page(sources: string[], params: unknown[]): Promise<TimelinePage> {
    if (sources.length === 0) {
      return { events: [], total: 0 };
    }
    const rows = await this.deps.datastore.sql.unsafe<(Partial<TimelineEvent> & { total: number })[]>(
      `with visible(ids) as (select $5::int[]), lock_storm(sessions) as (select $7::int),
       events as (${sources.join("\nunion all\n")})
       select counted.total, p.*
       from (select count(*)::int as total from events) counted
       left join lateral (
         select e.id, e.event_type, e.connection_id,
           case when e.connection_id = 0 then 'All Servers' else coalesce(c.name, '') end as server_name,
           ${text("e.at")} as occurred_at, e.severity, e.title, e.summary, e.details
         from events e left join connections c on c.id = e.connection_id
         order by e.at desc, e.id collate "C"
         limit $4 offset $6) p on true`,
      params as never[],
    );
    return {
      events: rows.flatMap(({ total: _total, ...event }) =>
        event.id == null ? [] : [event as TimelineEvent],
      ),
      total: rows[0]?.total ?? 0,
    };
  }
}
