import { effectiveProbeConfigs, type Sql } from "@dbmon/datastore";
import type { EvaluationContext, Rule } from "./context.js";
import type { AlerterLogger } from "./logger.js";
import { currentValues, existingMetricTables, type MetricValue, metricDefinitions } from "./metrics.js";
import { enqueue } from "./notify/queue.js";
import { violates } from "./operators.js";

const severityRank: Record<string, number> = { info: 0, warning: 1, critical: 2 };

export interface EvaluationSettings {
  /** A key cleared this recently is not fired again (against flapping). */
  cooldownSeconds: number;
  /** Probe intervals, for the stale-metrics rule. */
  probeIntervals: ReadonlyMap<string, number>;
}

interface OpenAlert {
  id: number;
  rule_id: number;
  connection_id: number;
  database_name: string | null;
  object_name: string | null;
  status: string;
  severity: string;
  metric_value: number | null;
}

const keyOf = (ruleId: number, connectionId: number, db: string | null, object: string | null) =>
  `${ruleId}|${connectionId}|${db ?? ""}|${object ?? ""}`;

/** Values of one metric now; nothing when its tables are missing or its query fails. */
async function metricValues(
  sql: Sql,
  metric: string,
  context: EvaluationContext,
  tables: Set<string>,
  settings: EvaluationSettings,
  logger: AlerterLogger,
): Promise<{ values: MetricValue[]; descriptions: Map<number, string> } | undefined> {
  if (metric === "probe_staleness_ratio") {
    return staleness(sql, context, settings);
  }
  const definition = metricDefinitions[metric];
  if (!definition?.tables.every((table) => tables.has(table))) {
    return undefined;
  }
  try {
    await definition.prepare?.(sql, context.now);
    const values = await currentValues(sql, definition, context.now);
    return {
      values: values.filter((v) => v.value !== null && Number.isFinite(v.value)),
      descriptions: new Map(),
    };
  } catch (error) {
    logger.warn({ metric, err: error }, "metric query failed");
    return undefined;
  }
}

/**
 * (now − last run) ÷ interval of each enabled probe that has run on a reachable monitored
 * connection, with the interval and enablement its probe configuration gives that connection
 * (the registry's default where none is stored); one value per connection (its stalest probe).
 * Evaluated like any other metric, so the alert clears only when data is fresh again and does not flap.
 */
async function staleness(sql: Sql, context: EvaluationContext, settings: EvaluationSettings) {
  const runs = await sql<{ connection_id: number; probe_name: string; age: number }[]>`
    select connection_id, probe_name, extract(epoch from ${context.now.toISOString()}::timestamptz - last_run_at)::float8 as age
    from probe_runs`;
  const configs = await effectiveProbeConfigs(sql, [...new Set(runs.map((run) => run.connection_id))]);
  const worst = new Map<number, { probe: string; ratio: number }>();
  for (const run of runs) {
    const topology = context.connections.get(run.connection_id);
    const config = configs.get(run.connection_id)?.get(run.probe_name);
    const interval = config ? config.intervalSeconds : settings.probeIntervals.get(run.probe_name);
    if (!topology?.monitored || topology.connectionError !== null || !interval || config?.enabled === false) {
      continue;
    }
    const ratio = run.age / interval;
    const current = worst.get(run.connection_id);
    if (!current || ratio > current.ratio) {
      worst.set(run.connection_id, { probe: run.probe_name, ratio });
    }
  }
  const values: MetricValue[] = [];
  const descriptions = new Map<number, string>();
  for (const [connectionId, { probe, ratio }] of worst) {
    values.push({ connection_id: connectionId, database_name: null, object_name: null, value: ratio });
    descriptions.set(
      connectionId,
      `Stale metrics: ${probe} on ${context.connections.get(connectionId)?.name ?? "Unknown"}`,
    );
  }
  return { values, descriptions };
}

/**
 * One pass over every rule: fire, update, re-activate and clear threshold alerts; answers the
 * metric values it computed (for anomaly detection). Safe with several
 * alerters: alerts are opened with the open-alert unique index and closed with conditional updates,
 * and only the process whose statement changed the row queues the notification.
 */
export async function evaluateThresholds(
  sql: Sql,
  context: EvaluationContext,
  settings: EvaluationSettings,
  logger: AlerterLogger,
): Promise<Map<string, MetricValue[]>> {
  const rules = await sql<Rule[]>`
    select id, name, description, metric_name, default_operator, default_threshold, default_severity,
      default_enabled, default_duration_seconds from alert_rules order by id`;
  const tables = await existingMetricTables(sql);
  const open = await sql<OpenAlert[]>`
    select id::int as id, rule_id, connection_id, database_name, object_name, status, severity, metric_value
    from alerts where alert_type = 'threshold' and status <> 'cleared' and rule_id is not null`;
  const openByKey = new Map(
    open.map((a) => [keyOf(a.rule_id, a.connection_id, a.database_name, a.object_name), a]),
  );
  const conditions = await sql<
    { rule_id: number; connection_id: number; database_name: string; object_name: string; since: string }[]
  >`
    select rule_id, connection_id, database_name, object_name, since from alert_conditions`;
  const since = new Map(
    conditions.map((c) => [
      keyOf(c.rule_id, c.connection_id, c.database_name || null, c.object_name || null),
      new Date(c.since),
    ]),
  );
  const seen = new Set<string>();
  const holding = new Set<string>();
  const cache = new Map<string, Awaited<ReturnType<typeof metricValues>>>();
  const now = context.now;
  const iso = now.toISOString();

  for (const rule of rules) {
    if (!cache.has(rule.metric_name)) {
      cache.set(
        rule.metric_name,
        await metricValues(sql, rule.metric_name, context, tables, settings, logger),
      );
    }
    const metric = cache.get(rule.metric_name);
    for (const value of metric?.values ?? []) {
      const topology = context.connections.get(value.connection_id);
      if (!topology?.monitored) {
        continue;
      }
      const key = keyOf(rule.id, value.connection_id, value.database_name, value.object_name);
      seen.add(key);
      const effective = context.effective(rule, value.connection_id, value.database_name);
      const violated = effective.enabled && violates(value.value, effective.operator, effective.threshold);
      const existing = openByKey.get(key);
      if (!violated) {
        if (existing) {
          await clearAlert(sql, existing.id, now, {
            connectionId: value.connection_id,
            clusterId: topology.clusterId,
            groupId: topology.groupId,
          });
        }
        continue;
      }
      holding.add(key);
      if (context.blackedOut(value.connection_id, value.database_name)) {
        continue;
      }
      const description = metric?.descriptions.get(value.connection_id) ?? rule.description;
      const scope = {
        connectionId: value.connection_id,
        clusterId: topology.clusterId,
        groupId: topology.groupId,
      };
      if (existing) {
        const rank = severityRank[effective.severity] ?? 0;
        const reactivated = await sql`
          update alerts set status = 'active'
          where id = ${existing.id} and status = 'acknowledged'
            and (case severity when 'critical' then 2 when 'warning' then 1 else 0 end) < ${rank}
          returning id`;
        await sql`
          update alerts set metric_value = ${value.value}, threshold_value = ${effective.threshold},
            operator = ${effective.operator}, severity = ${effective.severity}, last_updated = ${iso}::timestamptz,
            description = ${description},
            ai_analysis = case when metric_value is distinct from ${value.value} then null else ai_analysis end
          where id = ${existing.id} and status <> 'cleared'`;
        if (reactivated.length > 0) {
          await sql`delete from alert_acknowledgments where alert_id = ${existing.id}`;
          await enqueue(sql, now, existing.id, scope, "alert_fire");
        }
        continue;
      }
      const started = since.get(key) ?? now;
      if (!since.has(key)) {
        await sql`
          insert into alert_conditions (rule_id, connection_id, database_name, object_name, since, last_seen_at)
          values (${rule.id}, ${value.connection_id}, ${value.database_name ?? ""}, ${value.object_name ?? ""}, ${iso}::timestamptz, ${iso}::timestamptz)
          on conflict do nothing`;
      }
      if (now.getTime() - started.getTime() < effective.durationSeconds * 1000) {
        continue;
      }
      const [inserted] = await sql<{ id: number }[]>`
        insert into alerts (alert_type, rule_id, connection_id, database_name, object_name, probe_name, metric_name,
          metric_value, threshold_value, operator, severity, title, description, status, triggered_at, last_updated)
        select 'threshold', ${rule.id}, ${value.connection_id}, ${value.database_name}, ${value.object_name},
          ${rule.metric_name.split(".")[0] ?? null}, ${rule.metric_name}, ${value.value}, ${effective.threshold},
          ${effective.operator}, ${effective.severity}, ${rule.name}, ${description}, 'active', ${iso}::timestamptz, ${iso}::timestamptz
        where not exists (
          select 1 from alerts where alert_type = 'threshold' and rule_id = ${rule.id} and connection_id = ${value.connection_id}
            and coalesce(database_name, '') = ${value.database_name ?? ""} and coalesce(object_name, '') = ${value.object_name ?? ""}
            and status = 'cleared' and cleared_at > ${iso}::timestamptz - make_interval(secs => ${settings.cooldownSeconds}))
        on conflict do nothing
        returning id::int as id`;
      if (inserted) {
        logger.info(
          { alertId: inserted.id, rule: rule.name, connectionId: value.connection_id },
          "alert fired",
        );
        await enqueue(sql, now, inserted.id, scope, "alert_fire");
      }
    }
  }

  // Open alerts whose metric produced no value for their key: the condition is gone (or its data is).
  for (const [key, alert] of openByKey) {
    if (!seen.has(key)) {
      const topology = context.connections.get(alert.connection_id);
      await clearAlert(sql, alert.id, now, {
        connectionId: alert.connection_id,
        clusterId: topology?.clusterId ?? null,
        groupId: topology?.groupId ?? null,
      });
    }
  }
  // Conditions that stopped holding start their duration afresh next time.
  for (const condition of conditions) {
    const key = keyOf(
      condition.rule_id,
      condition.connection_id,
      condition.database_name || null,
      condition.object_name || null,
    );
    if (!holding.has(key)) {
      await sql`
        delete from alert_conditions where rule_id = ${condition.rule_id} and connection_id = ${condition.connection_id}
          and database_name = ${condition.database_name} and object_name = ${condition.object_name}`;
    }
  }
  const values = new Map<string, MetricValue[]>();
  for (const [metric, result] of cache) {
    if (result && metric !== "probe_staleness_ratio") {
      values.set(metric, result.values);
    }
  }
  return values;
}

/** Clears an open alert and queues the clear notification, once, whichever alerter gets there first. */
export async function clearAlert(
  sql: Sql,
  alertId: number,
  now: Date,
  scope: { connectionId: number; clusterId: number | null; groupId: number | null },
): Promise<boolean> {
  const cleared = await sql`
    update alerts set status = 'cleared', cleared_at = ${now.toISOString()}::timestamptz, last_updated = ${now.toISOString()}::timestamptz
    where id = ${alertId} and status <> 'cleared' returning id`;
  if (cleared.length > 0) {
    await enqueue(sql, now, alertId, scope, "alert_clear");
    return true;
  }
  return false;
}

/** Connection alerts: one per unreachable monitored connection, cleared when it is reachable again. */
export async function evaluateConnections(
  sql: Sql,
  context: EvaluationContext,
  logger: AlerterLogger,
): Promise<void> {
  const now = context.now;
  const iso = now.toISOString();
  const open = await sql<{ id: number; connection_id: number; description: string }[]>`
    select id::int as id, connection_id, description from alerts where alert_type = 'connection' and status <> 'cleared'`;
  const openByConnection = new Map(open.map((a) => [a.connection_id, a]));
  for (const [connectionId, topology] of context.connections) {
    const scope = { connectionId, clusterId: topology.clusterId, groupId: topology.groupId };
    const existing = openByConnection.get(connectionId);
    if (!topology.monitored || topology.connectionError === null) {
      if (existing) {
        await clearAlert(sql, existing.id, now, scope);
      }
      continue;
    }
    if (existing) {
      if (existing.description !== topology.connectionError) {
        await sql`update alerts set description = ${topology.connectionError}, last_updated = ${iso}::timestamptz where id = ${existing.id}`;
      }
      continue;
    }
    if (context.blackedOut(connectionId, null)) {
      continue;
    }
    const [inserted] = await sql<{ id: number }[]>`
      insert into alerts (alert_type, connection_id, severity, title, description, status, triggered_at, last_updated)
      values ('connection', ${connectionId}, 'critical', ${`Connection error: ${topology.name}`}, ${topology.connectionError},
        'active', ${iso}::timestamptz, ${iso}::timestamptz)
      on conflict do nothing returning id::int as id`;
    if (inserted) {
      logger.info({ alertId: inserted.id, connectionId }, "connection alert fired");
      await enqueue(sql, now, inserted.id, scope, "alert_fire");
    }
  }
}
