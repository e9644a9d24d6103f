import type { Sql } from "@dbmon/datastore";
import type { EvaluationContext } from "./context.js";
import { clearAlerts, writePass } from "./evaluate.js";
import type { AlerterLogger } from "./logger.js";
import { isServerWide } from "./metrics.js";
import type { Scope } from "./notify/queue.js";

/**
 * Whole-server alerts stay under the connection that speaks for their server (see
 * `server-values.ts` for how they are evaluated once per server).
 */

/** Whether an open alert is a whole-server one: by its rule's metric, or its anomaly series' metric. */
function wholeServer(alert: OpenServerAlert): boolean {
  const metric = alert.alert_type === "anomaly" ? alert.metric_name?.split("#")[0] : alert.rule_metric;
  return metric !== undefined && metric !== null && isServerWide(metric, alert);
}

interface OpenServerAlert {
  id: number;
  alert_type: string;
  connection_id: number;
  database_name: string | null;
  metric_name: string | null;
  rule_metric: string | null;
}

/**
 * Open whole-server alerts kept under a connection that no longer speaks for its server (it was
 * unmonitored, moved to another address, or a connection with a lower id is monitored again) move
 * to the connection that speaks for it now: the alert goes on, acknowledgement and history
 * included, without a clear and a new fire. One that would duplicate an alert already open there is
 * cleared (with its clear notification). A server with no monitored connection left keeps nothing to
 * move to: its alerts clear as their values disappear. A deleted connection's alerts are deleted with
 * it (every row of a connection is); the server's next speaking connection raises the condition
 * again. Runs before the pass's evaluation, so the pass finds each open alert under its speaker.
 */
export async function moveServerAlerts(
  sql: Sql,
  context: EvaluationContext,
  logger: AlerterLogger,
): Promise<void> {
  const moves = new Map<number, number>();
  for (const connectionId of context.connections.keys()) {
    const speaker = context.speakerOf(connectionId);
    if (speaker !== undefined && speaker !== connectionId) {
      moves.set(connectionId, speaker);
    }
  }
  if (moves.size === 0) {
    return;
  }
  const candidates = await sql<OpenServerAlert[]>`
    select a.id::int as id, a.alert_type, a.connection_id, a.database_name, a.metric_name, r.metric_name as rule_metric
    from alerts a left join alert_rules r on r.id = a.rule_id
    where a.connection_id = any(${[...moves.keys()]}::int[]) and a.status <> 'cleared'
      and a.alert_type in ('threshold', 'anomaly') and a.database_name is null
    order by a.id`;
  const stranded = candidates.filter(wholeServer);
  if (stranded.length === 0) {
    return;
  }
  await writePass(sql, async (tx) => {
    // The oldest alert of each key moves, unless its speaker already has one open; the open-alert
    // unique indexes cover (rule or series, connection, database, object).
    const moved = await tx<{ id: number; connection_id: number }[]>`
      update alerts a set connection_id = m.speaker, server_wide = true, last_updated = ${context.now.toISOString()}::timestamptz
      from (
        select distinct on (s.alert_type, s.rule_id, s.metric_name, coalesce(s.object_name, ''), k.speaker)
          s.id, k.speaker
        from unnest(${stranded.map((a) => a.id)}::bigint[], ${stranded.map((a) => moves.get(a.connection_id) ?? 0)}::int[])
          k(id, speaker)
        join alerts s on s.id = k.id
        where s.status <> 'cleared' and not exists (
          select 1 from alerts o where o.connection_id = k.speaker and o.status <> 'cleared'
            and o.alert_type = s.alert_type and o.rule_id is not distinct from s.rule_id
            and o.metric_name is not distinct from s.metric_name and o.database_name is null
            and coalesce(o.object_name, '') = coalesce(s.object_name, ''))
        order by s.alert_type, s.rule_id, s.metric_name, coalesce(s.object_name, ''), k.speaker, s.id
      ) m
      where a.id = m.id and a.status <> 'cleared'
      returning a.id::int as id, a.connection_id`;
    const movedIds = new Set(moved.map((row) => row.id));
    for (const row of moved) {
      logger.info(
        { alertId: row.id, connectionId: row.connection_id },
        "server alert moved to its speaking connection",
      );
    }
    const duplicates = stranded
      .filter((alert) => !movedIds.has(alert.id))
      .map((alert) => ({ id: alert.id, scope: scopeOf(context, alert.connection_id) }));
    await clearAlerts(tx, duplicates, context.now);
  });
}

function scopeOf(context: EvaluationContext, connectionId: number): Scope {
  const topology = context.connections.get(connectionId);
  return { connectionId, clusterId: topology?.clusterId ?? null, groupId: topology?.groupId ?? null };
}
