import type { OverviewSnapshotSchema } from "@dbmon/contract";
import type { Sql } from "@dbmon/datastore";
import type { z } from "@hono/zod-openapi";
import { alertSeenThrough } from "../auth/visibility.js";
import { activeAlertCounts, readServers, serverStatus } from "../clusters/status.js";
import type { Timeline } from "../timeline/service.js";

export type OverviewSnapshot = z.output<typeof OverviewSnapshotSchema>;

const DAY_MS = 24 * 3600 * 1000;
const TOP_ALERTS = 10;
const RECENT_EVENTS = 20;

/**
 * The state of the servers `connectionIds` (null: the whole estate) from collected data: server
 * counts (offline when unreachable, warning when reachable with active alerts), active alerts, active
 * and upcoming blackouts that cover them, and their timeline of the last 24 hours.
 */
export async function buildSnapshot(
  deps: { sql: Sql; timeline: Timeline },
  connectionIds: number[] | null,
  now: Date,
): Promise<OverviewSnapshot> {
  const { sql, timeline } = deps;
  const ids = connectionIds;
  const [servers, alertCounts, alerts, blackouts, events] = await Promise.all([
    readServers(sql, ids ? { only: ids } : {}),
    activeAlertCounts(sql),
    // Each alert once, under the connection of `ids` it is seen through (whole-server alerts too).
    sql.unsafe<{ title: string; server_name: string; severity: "info" | "warning" | "critical" }[]>(
      `select a.title, c.name as server_name, a.severity
      from alerts a join connections c on c.id = ${alertSeenThrough("a", "$1::int[]")}
      where a.status = 'active'
      order by case a.severity when 'critical' then 0 when 'warning' then 1 else 2 end, a.triggered_at desc, a.id`,
      [ids],
    ),
    sql<{ scope: string; reason: string; start_time: string; end_time: string; active: boolean }[]>`
      select b.scope, b.reason, to_json(b.start_time) #>> '{}' as start_time, to_json(b.end_time) #>> '{}' as end_time,
        b.start_time <= ${now.toISOString()}::timestamptz as active
      from blackouts b
      where b.end_time > ${now.toISOString()}::timestamptz
        and b.start_time <= ${new Date(now.getTime() + DAY_MS).toISOString()}::timestamptz
        and (${ids}::int[] is null or b.scope = 'estate'
          or (b.scope = 'server' and b.connection_id = any(${ids}::int[]))
          or (b.scope = 'cluster' and exists (
            select 1 from connections c where c.cluster_id = b.cluster_id and c.id = any(${ids}::int[])))
          or (b.scope = 'group' and exists (
            select 1 from connections c join clusters k on k.id = c.cluster_id
            where k.group_id = b.group_id and c.id = any(${ids}::int[]))))
      order by b.start_time, b.id`,
    timeline.read({
      connectionIds: ids,
      visibleIds: ids,
      start: new Date(now.getTime() - DAY_MS),
      end: now,
      page: { limit: RECENT_EVENTS, offset: 0 },
    }),
  ]);
  const listed = servers.map((server) => {
    const count = alertCounts.get(server.id) ?? 0;
    const status: "online" | "offline" | "warning" =
      serverStatus(server) === "offline" ? "offline" : count > 0 ? "warning" : "online";
    return { id: server.id, name: server.name, status, role: server.role, active_alert_count: count };
  });
  const bySeverity = (severity: string) => alerts.filter((alert) => alert.severity === severity).length;
  const window = ({ active: _active, ...blackout }: (typeof blackouts)[number]) => blackout;
  return {
    timestamp: now.toISOString(),
    server_total: listed.length,
    server_online: listed.filter((server) => server.status === "online").length,
    server_offline: listed.filter((server) => server.status === "offline").length,
    server_warning: listed.filter((server) => server.status === "warning").length,
    servers: listed,
    alert_total: alerts.length,
    alert_critical: bySeverity("critical"),
    alert_warning: bySeverity("warning"),
    alert_info: bySeverity("info"),
    top_alerts: alerts.slice(0, TOP_ALERTS),
    active_blackouts: blackouts.filter((blackout) => blackout.active).map(window),
    upcoming_blackouts: blackouts.filter((blackout) => !blackout.active).map(window),
    recent_events: events.events.map((event) => ({
      event_type: event.event_type,
      server_name: event.server_name,
      occurred_at: event.occurred_at,
      severity: event.severity,
      title: event.title,
      summary: event.summary,
    })),
  };
}

/**
 * Whether `next` differs from the snapshot the current summary was written from in a way worth a
 * new summary: server counts, alert counts, the number of active blackouts, or a server restart
 * `previous` did not know of. `restart` says whether a restart is among the reasons.
 */
export function compareSnapshots(
  previous: OverviewSnapshot | null,
  next: OverviewSnapshot,
): { significant: boolean; restart: boolean } {
  const restarts = (snapshot: OverviewSnapshot) =>
    snapshot.recent_events
      .filter((event) => event.event_type === "restart")
      .map((event) => `${event.server_name}\n${event.occurred_at}`);
  const known = new Set(previous ? restarts(previous) : []);
  const restart = previous !== null && restarts(next).some((key) => !known.has(key));
  if (previous === null) {
    return { significant: true, restart: false };
  }
  const counted = [
    "server_total",
    "server_online",
    "server_offline",
    "server_warning",
    "alert_total",
    "alert_critical",
    "alert_warning",
    "alert_info",
  ] as const;
  const significant =
    restart ||
    counted.some((field) => previous[field] !== next[field]) ||
    previous.active_blackouts.length !== next.active_blackouts.length;
  return { significant, restart };
}
