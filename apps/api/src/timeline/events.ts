import type { Sql } from "@dbmon/datastore";

export type EventType =
  | "config_change"
  | "hba_change"
  | "ident_change"
  | "restart"
  | "alert_fired"
  | "alert_cleared"
  | "alert_acknowledged"
  | "extension_change"
  | "blackout_started"
  | "blackout_ended";

/** An event before the connection's name is filled in. */
export interface RawEvent {
  id: string;
  event_type: EventType;
  connection_id: number;
  occurred_at: string;
  severity: string;
  title: string;
  summary: string;
  details: Record<string, unknown>;
}

export interface EventWindow {
  /** Connections whose events to include. */
  connectionIds: number[];
  start: Date;
  end: Date;
}

interface Logger {
  warn(object: object, message: string): void;
}

async function tablesPresent(sql: Sql, names: string[]): Promise<boolean> {
  const [row] = await sql<{ ok: boolean }[]>`
    select bool_and(to_regclass(name) is not null) as ok from unnest(${names}::text[]) as name`;
  return row?.ok === true;
}

/** Epoch seconds of a timestamp text, for event ids. */
function epoch(text: string): number {
  return Math.floor(Date.parse(text) / 1000);
}

interface SnapshotSource {
  type: EventType;
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
async function snapshotEvents(sql: Sql, source: SnapshotSource, window: EventWindow): Promise<RawEvent[]> {
  if (!(await tablesPresent(sql, [`metrics.${source.table}`]))) {
    return [];
  }
  const table = `metrics.${source.table}`;
  const rows = await sql.unsafe<{ connection_id: number; at: string; changes: Record<string, unknown>[] }[]>(
    `with snapshots as (
       select connection_id, collected_at,
         lag(collected_at) over (partition by connection_id order by collected_at) as previous
       from (select distinct connection_id, collected_at from ${table}
             where connection_id = any($1::int[]) and collected_at <= $3::timestamptz) s
     )
     select s.connection_id, to_json(s.collected_at) #>> '{}' as at,
       json_agg(json_build_object('name', d.name, 'old_value', d.old_value, 'new_value', d.new_value,
         'change_type', d.change_type) order by d.name) as changes
     from snapshots s
     cross join lateral (
       select coalesce(n.k, o.k) as name, o.v as old_value, n.v as new_value,
         case when o.k is null then 'added' when n.k is null then 'removed' else 'modified' end as change_type
       from (select ${source.key} as k, ${source.value} as v from ${table}
             where connection_id = s.connection_id and collected_at = s.collected_at) n
       full join (select ${source.key} as k, ${source.value} as v from ${table}
             where connection_id = s.connection_id and collected_at = s.previous) o on o.k = n.k
       where n.v::text is distinct from o.v::text
     ) d
     where s.previous is not null and s.collected_at >= $2::timestamptz
     group by s.connection_id, s.collected_at`,
    [window.connectionIds, window.start.toISOString(), window.end.toISOString()],
  );
  return rows.map((row) => ({
    id: `${source.prefix}-${row.connection_id}-${epoch(row.at)}`,
    event_type: source.type,
    connection_id: row.connection_id,
    occurred_at: row.at,
    severity: "info",
    title: source.title,
    summary: `Changed ${row.changes.length} ${source.noun}`,
    details: { change_count: row.changes.length, changes: row.changes },
  }));
}

async function restartEvents(sql: Sql, window: EventWindow): Promise<RawEvent[]> {
  if (!(await tablesPresent(sql, ["metrics.pg_node_role"]))) {
    return [];
  }
  const rows = await sql<{ connection_id: number; at: string; started: string; previous: string }[]>`
    select connection_id, to_json(collected_at) #>> '{}' as at, to_json(postmaster_start_time) #>> '{}' as started,
      to_json(previous) #>> '{}' as previous
    from (
      select connection_id, collected_at, postmaster_start_time,
        lag(postmaster_start_time) over (partition by connection_id order by collected_at) as previous
      from metrics.pg_node_role
      where connection_id = any(${window.connectionIds}::int[]) and collected_at <= ${window.end.toISOString()}::timestamptz
    ) samples
    where previous is not null and postmaster_start_time is distinct from previous
      and collected_at >= ${window.start.toISOString()}::timestamptz`;
  return rows.map((row) => ({
    id: `restart-${row.connection_id}-${epoch(row.started)}`,
    event_type: "restart",
    connection_id: row.connection_id,
    // When the server came up, as the server itself says.
    occurred_at: row.started,
    severity: "warning",
    title: "Server Restart Detected",
    summary: `Server restarted at ${row.started}`,
    details: { previous_start_time: row.previous, postmaster_start_time: row.started, detected_at: row.at },
  }));
}

/** Alerts fired and cleared, acknowledgments, and blackouts starting and ending. */
async function alertEvents(sql: Sql, window: EventWindow, types: Set<EventType>): Promise<RawEvent[]> {
  const events: RawEvent[] = [];
  const params = [window.connectionIds, window.start.toISOString(), window.end.toISOString()];
  if (types.has("alert_fired") || types.has("alert_cleared")) {
    const alerts = await sql.unsafe<
      {
        id: number;
        connection_id: number;
        title: string;
        severity: string;
        status: string;
        fired: string | null;
        cleared: string | null;
      }[]
    >(
      `select id, connection_id, title, severity, status,
         to_json(triggered_at) #>> '{}' as fired, to_json(cleared_at) #>> '{}' as cleared
       from alerts
       where connection_id = any($1::int[])
         and (triggered_at between $2::timestamptz and $3::timestamptz or cleared_at between $2::timestamptz and $3::timestamptz)`,
      params as never[],
    );
    const inWindow = (at: string | null) =>
      at !== null && Date.parse(at) >= window.start.getTime() && Date.parse(at) <= window.end.getTime();
    for (const alert of alerts) {
      if (types.has("alert_fired") && inWindow(alert.fired)) {
        events.push({
          id: `alert-fired-${alert.id}-${epoch(alert.fired as string)}`,
          event_type: "alert_fired",
          connection_id: alert.connection_id,
          occurred_at: alert.fired as string,
          severity: alert.severity,
          title: `Alert Fired: ${alert.title}`,
          summary: alert.title,
          details: { alert_id: alert.id, severity: alert.severity, status: alert.status },
        });
      }
      if (types.has("alert_cleared") && inWindow(alert.cleared)) {
        const seconds = alert.fired
          ? (Date.parse(alert.cleared as string) - Date.parse(alert.fired)) / 1000
          : null;
        events.push({
          id: `alert-cleared-${alert.id}-${epoch(alert.cleared as string)}`,
          event_type: "alert_cleared",
          connection_id: alert.connection_id,
          occurred_at: alert.cleared as string,
          severity: "info",
          title: `Alert Cleared: ${alert.title}`,
          summary: alert.title,
          details: { alert_id: alert.id, severity: alert.severity, duration_seconds: seconds },
        });
      }
    }
  }
  if (types.has("alert_acknowledged")) {
    const acks = await sql.unsafe<
      {
        alert_id: number;
        connection_id: number;
        title: string;
        at: string;
        acknowledged_by: string | null;
        false_positive: boolean | null;
        message: string | null;
      }[]
    >(
      `select k.alert_id, a.connection_id, a.title, to_json(k.acknowledged_at) #>> '{}' as at, k.acknowledged_by,
         k.false_positive, k.message
       from alert_acknowledgments k join alerts a on a.id = k.alert_id
       where a.connection_id = any($1::int[]) and k.acknowledged_at between $2::timestamptz and $3::timestamptz`,
      params as never[],
    );
    for (const ack of acks) {
      events.push({
        id: `alert-ack-${ack.alert_id}-${epoch(ack.at)}`,
        event_type: "alert_acknowledged",
        connection_id: ack.connection_id,
        occurred_at: ack.at,
        severity: "info",
        title: `${ack.false_positive ? "Alert Marked False Positive" : "Alert Acknowledged"}: ${ack.title}`,
        summary: ack.message ?? ack.title,
        details: {
          alert_id: ack.alert_id,
          acknowledged_by: ack.acknowledged_by,
          false_positive: ack.false_positive === true,
          message: ack.message,
        },
      });
    }
  }
  if (types.has("blackout_started") || types.has("blackout_ended")) {
    const blackouts = await sql.unsafe<
      {
        id: number;
        scope: string;
        connection_id: number | null;
        started: string;
        ended: string | null;
        reason: string | null;
        created_by: string | null;
      }[]
    >(
      `select id, scope, connection_id, to_json(start_time) #>> '{}' as started, to_json(end_time) #>> '{}' as ended,
         reason, created_by
       from blackouts
       where (scope <> 'server' or connection_id = any($1::int[]))
         and (start_time between $2::timestamptz and $3::timestamptz or end_time between $2::timestamptz and $3::timestamptz)`,
      params as never[],
    );
    for (const blackout of blackouts) {
      const connectionId = blackout.scope === "server" ? (blackout.connection_id ?? 0) : 0;
      const details = {
        blackout_id: blackout.id,
        scope: blackout.scope,
        reason: blackout.reason,
        created_by: blackout.created_by,
        end_time: blackout.ended,
      };
      const inWindow = (at: string | null) =>
        at !== null && Date.parse(at) >= window.start.getTime() && Date.parse(at) <= window.end.getTime();
      if (types.has("blackout_started") && inWindow(blackout.started)) {
        events.push({
          id: `blackout-start-${blackout.id}`,
          event_type: "blackout_started",
          connection_id: connectionId,
          occurred_at: blackout.started,
          severity: "info",
          title: "Blackout Started",
          summary: blackout.reason ?? "",
          details,
        });
      }
      if (types.has("blackout_ended") && inWindow(blackout.ended)) {
        events.push({
          id: `blackout-end-${blackout.id}`,
          event_type: "blackout_ended",
          connection_id: connectionId,
          occurred_at: blackout.ended as string,
          severity: "info",
          title: "Blackout Ended",
          summary: blackout.reason ?? "",
          details,
        });
      }
    }
  }
  return events;
}

/** Every event of the wanted types in the window, newest first. */
export async function timelineEvents(
  sql: Sql,
  window: EventWindow,
  types: Set<EventType>,
  logger: Logger,
): Promise<RawEvent[]> {
  const sources: Promise<RawEvent[]>[] = [
    ...SNAPSHOT_SOURCES.filter((source) => types.has(source.type)).map((source) =>
      snapshotEvents(sql, source, window),
    ),
    ...(types.has("restart") ? [restartEvents(sql, window)] : []),
    // Tables of another feature: a layout other than the one assumed is logged, not fatal.
    alertEvents(sql, window, types).catch((error: unknown) => {
      logger.warn({ err: error }, "timeline: reading alerts or blackouts failed");
      return [];
    }),
  ];
  const events = (await Promise.all(sources)).flat();
  return events.sort(
    (a, b) => Date.parse(b.occurred_at) - Date.parse(a.occurred_at) || a.id.localeCompare(b.id),
  );
}
