import { effectiveProbeConfigs, type Sql } from "@dbmon/datastore";
import type { TransactionSql } from "postgres";
import type { EvaluationContext, Rule } from "./context.js";
import type { AlerterLogger } from "./logger.js";
import {
  currentValues,
  existingMetricTables,
  isServerWide,
  type MetricValue,
  metricDefinitions,
} from "./metrics.js";
import { enqueueEach, type Queryable, type Scope } from "./notify/queue.js";
import { violates } from "./operators.js";
import { blackedOutValue, oneValuePerServer } from "./server-values.js";

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
    // Whole-server values are kept once per server (oneValuePerServer): read once per server.
    const values = await currentValues(sql, definition, context.now, { oneReaderPerServer: true });
    return {
      values: oneValuePerServer(
        metric,
        values.filter((v) => v.value !== null && Number.isFinite(v.value)),
        context,
      ),
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
  const writes: ThresholdWrites = { clears: [], refreshes: [], conditions: [], fires: [], lapsed: [] };

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
      const scope = {
        connectionId: value.connection_id,
        clusterId: topology.clusterId,
        groupId: topology.groupId,
      };
      if (!violated) {
        if (existing) {
          writes.clears.push({ id: existing.id, scope });
        }
        continue;
      }
      holding.add(key);
      if (blackedOutValue(context, rule.metric_name, value)) {
        continue;
      }
      const serverWide = isServerWide(rule.metric_name, value);
      const description = metric?.descriptions.get(value.connection_id) ?? rule.description;
      if (existing) {
        writes.refreshes.push({
          id: existing.id,
          rank: severityRank[effective.severity] ?? 0,
          value: value.value,
          threshold: effective.threshold,
          operator: effective.operator,
          severity: effective.severity,
          description,
          serverWide,
          scope,
        });
        continue;
      }
      const started = since.get(key) ?? now;
      if (!since.has(key)) {
        writes.conditions.push({
          rule_id: rule.id,
          connection_id: value.connection_id,
          database_name: value.database_name ?? "",
          object_name: value.object_name ?? "",
        });
      }
      if (now.getTime() - started.getTime() < effective.durationSeconds * 1000) {
        continue;
      }
      writes.fires.push({
        key,
        rule,
        value,
        threshold: effective.threshold,
        operator: effective.operator,
        severity: effective.severity,
        description,
        serverWide,
        scope,
      });
    }
  }

  // Open alerts whose metric produced no value for their key: the condition is gone (or its data is).
  for (const [key, alert] of openByKey) {
    if (!seen.has(key)) {
      const topology = context.connections.get(alert.connection_id);
      writes.clears.push({
        id: alert.id,
        scope: {
          connectionId: alert.connection_id,
          clusterId: topology?.clusterId ?? null,
          groupId: topology?.groupId ?? null,
        },
      });
    }
  }
  // Conditions that stopped holding start their duration afresh next time.
  writes.lapsed = conditions.filter(
    (condition) =>
      !holding.has(
        keyOf(
          condition.rule_id,
          condition.connection_id,
          condition.database_name || null,
          condition.object_name || null,
        ),
      ),
  );
  await writePass(sql, (tx) => writeThresholds(tx, writes, now, settings, logger));
  const values = new Map<string, MetricValue[]>();
  for (const [metric, result] of cache) {
    if (result && metric !== "probe_staleness_ratio") {
      values.set(metric, result.values);
    }
  }
  return values;
}

/** Attempts of a pass's write transaction that a deadlock aborted. */
const WRITE_ATTEMPTS = 3;

/**
 * Runs a pass's writes in one transaction: one commit (one WAL flush) per pass however many rows
 * it writes. Two alerters whose passes decided differently can lock the same alerts in different
 * orders; PostgreSQL then aborts one of them, which writes again: every statement of a pass is
 * conditional (status checks, the open-alert unique indexes), so writing again after the other
 * committed changes, and notifies, only what is still to change. A unique violation is written again
 * too: moving a server's alert to its speaking connection (`moveServerAlerts`) can meet the alert
 * another alerter opened there meanwhile, which writing again finds.
 */
export async function writePass(sql: Sql, writes: (tx: TransactionSql) => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await sql.begin(writes);
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= WRITE_ATTEMPTS || (code !== "40P01" && code !== "23505")) {
        throw error;
      }
    }
  }
}

interface AlertCondition {
  rule_id: number;
  connection_id: number;
  database_name: string;
  object_name: string;
}

/** What a threshold pass decided to write, applied by writeThresholds. */
interface ThresholdWrites {
  clears: { id: number; scope: Scope }[];
  /** Open alerts whose condition still holds: their values, and re-activation when more severe. */
  refreshes: {
    id: number;
    rank: number;
    value: number;
    threshold: number;
    operator: string;
    severity: string;
    description: string;
    serverWide: boolean;
    scope: Scope;
  }[];
  /** Conditions that started holding now (their duration starts). */
  conditions: AlertCondition[];
  /** New alerts to open, unless in their key's cooldown or already open (another alerter). */
  fires: {
    key: string;
    rule: Rule;
    value: MetricValue;
    threshold: number;
    operator: string;
    severity: string;
    description: string;
    serverWide: boolean;
    scope: Scope;
  }[];
  /** Conditions that stopped holding. */
  lapsed: AlertCondition[];
}

/**
 * A threshold pass's writes, a few set-based statements in the caller's transaction: one commit
 * (one WAL flush) per pass however many conditions changed. Every statement stays conditional
 * (open-alert unique index, status checks), so with several alerters only the one whose statement
 * changed a row queues its notification.
 */
async function writeThresholds(
  sql: Queryable,
  writes: ThresholdWrites,
  now: Date,
  settings: EvaluationSettings,
  logger: AlerterLogger,
): Promise<void> {
  const iso = now.toISOString();
  await clearAlerts(sql, writes.clears, now);

  const refreshes = writes.refreshes;
  if (refreshes.length > 0) {
    // Before the refresh below changes the severity: an acknowledged alert that became more severe is active again.
    const reactivated = await sql<{ id: number }[]>`
      update alerts a set status = 'active'
      from unnest(${refreshes.map((r) => r.id)}::bigint[], ${refreshes.map((r) => r.rank)}::int[]) k(id, rank)
      where a.id = k.id and a.status = 'acknowledged'
        and (case a.severity when 'critical' then 2 when 'warning' then 1 else 0 end) < k.rank
      returning a.id::int as id`;
    await sql`
      update alerts a set metric_value = k.value, threshold_value = k.threshold, operator = k.operator,
        severity = k.severity, last_updated = ${iso}::timestamptz, description = k.description,
        server_wide = k.server_wide::boolean,
        ai_analysis = case when a.metric_value is distinct from k.value then null else a.ai_analysis end
      from unnest(${refreshes.map((r) => r.id)}::bigint[], ${refreshes.map((r) => r.value)}::float8[],
        ${refreshes.map((r) => r.threshold)}::float8[], ${refreshes.map((r) => r.operator)}::text[],
        ${refreshes.map((r) => r.severity)}::text[], ${refreshes.map((r) => r.description)}::text[],
        ${refreshes.map((r) => String(r.serverWide))}::text[])
        k(id, value, threshold, operator, severity, description, server_wide)
      where a.id = k.id and a.status <> 'cleared'`;
    if (reactivated.length > 0) {
      const ids = new Set(reactivated.map((row) => row.id));
      await sql`delete from alert_acknowledgments where alert_id = any(${[...ids]}::bigint[])`;
      await enqueueEach(
        sql,
        now,
        refreshes.filter((r) => ids.has(r.id)).map((r) => ({ alertId: r.id, scope: r.scope })),
        "alert_fire",
      );
    }
  }

  if (writes.conditions.length > 0) {
    await sql`
      insert into alert_conditions (rule_id, connection_id, database_name, object_name, since, last_seen_at)
      select k.rule_id, k.connection_id, k.database_name, k.object_name, ${iso}::timestamptz, ${iso}::timestamptz
      from ${conditionKeys(sql, writes.conditions)}
      on conflict do nothing`;
  }

  const fires = writes.fires;
  if (fires.length > 0) {
    const inserted = await sql<
      {
        id: number;
        rule_id: number;
        connection_id: number;
        database_name: string | null;
        object_name: string | null;
      }[]
    >`
      insert into alerts (alert_type, rule_id, connection_id, database_name, object_name, probe_name, metric_name,
        metric_value, threshold_value, operator, severity, title, description, server_wide, status, triggered_at, last_updated)
      select 'threshold', k.rule_id, k.connection_id, k.database_name, k.object_name, k.probe_name, k.metric_name,
        k.value, k.threshold, k.operator, k.severity, k.title, k.description, k.server_wide::boolean, 'active', ${iso}::timestamptz, ${iso}::timestamptz
      from unnest(${fires.map((f) => f.rule.id)}::int[], ${fires.map((f) => f.value.connection_id)}::int[],
        ${fires.map((f) => f.value.database_name)}::text[], ${fires.map((f) => f.value.object_name)}::text[],
        ${fires.map((f) => f.rule.metric_name.split(".")[0] ?? null)}::text[], ${fires.map((f) => f.rule.metric_name)}::text[],
        ${fires.map((f) => f.value.value)}::float8[], ${fires.map((f) => f.threshold)}::float8[],
        ${fires.map((f) => f.operator)}::text[], ${fires.map((f) => f.severity)}::text[],
        ${fires.map((f) => f.rule.name)}::text[], ${fires.map((f) => f.description)}::text[],
        ${fires.map((f) => String(f.serverWide))}::text[])
        with ordinality k(rule_id, connection_id, database_name, object_name, probe_name, metric_name, value, threshold,
          operator, severity, title, description, server_wide, n)
      where not exists (
        select 1 from alerts c where c.alert_type = 'threshold' and c.rule_id = k.rule_id and c.connection_id = k.connection_id
          and coalesce(c.database_name, '') = coalesce(k.database_name, '') and coalesce(c.object_name, '') = coalesce(k.object_name, '')
          and c.status = 'cleared' and c.cleared_at > ${iso}::timestamptz - make_interval(secs => ${settings.cooldownSeconds}))
      order by k.n
      on conflict do nothing
      returning id::int as id, rule_id, connection_id, database_name, object_name`;
    const fireByKey = new Map(fires.map((fire) => [fire.key, fire]));
    const opened: { alertId: number; scope: Scope }[] = [];
    for (const row of inserted) {
      const fire = fireByKey.get(keyOf(row.rule_id, row.connection_id, row.database_name, row.object_name));
      if (fire) {
        logger.info(
          { alertId: row.id, rule: fire.rule.name, connectionId: row.connection_id },
          "alert fired",
        );
        opened.push({ alertId: row.id, scope: fire.scope });
      }
    }
    await enqueueEach(sql, now, opened, "alert_fire");
  }

  if (writes.lapsed.length > 0) {
    await sql`
      delete from alert_conditions c using ${conditionKeys(sql, writes.lapsed)}
      where c.rule_id = k.rule_id and c.connection_id = k.connection_id
        and c.database_name = k.database_name and c.object_name = k.object_name`;
  }
}

/** Condition keys as the relation `k`. */
const conditionKeys = (sql: Queryable, keys: readonly AlertCondition[]) => sql`
  unnest(${keys.map((c) => c.rule_id)}::int[], ${keys.map((c) => c.connection_id)}::int[],
    ${keys.map((c) => c.database_name)}::text[], ${keys.map((c) => c.object_name)}::text[])
    k(rule_id, connection_id, database_name, object_name)`;

/**
 * Clears open alerts and queues their clear notifications, once, whichever alerter gets there
 * first; answers the ids it cleared.
 */
export async function clearAlerts(
  sql: Queryable,
  alerts: readonly { id: number; scope: Scope }[],
  now: Date,
): Promise<Set<number>> {
  if (alerts.length === 0) {
    return new Set();
  }
  const cleared = await sql<{ id: number }[]>`
    update alerts set status = 'cleared', cleared_at = ${now.toISOString()}::timestamptz, last_updated = ${now.toISOString()}::timestamptz
    where id = any(${alerts.map((a) => a.id)}::bigint[]) and status <> 'cleared' returning id::int as id`;
  const ids = new Set(cleared.map((row) => row.id));
  await enqueueEach(
    sql,
    now,
    alerts.filter((a) => ids.has(a.id)).map((a) => ({ alertId: a.id, scope: a.scope })),
    "alert_clear",
  );
  return ids;
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
  const clears: { id: number; scope: Scope }[] = [];
  const described: { id: number; description: string }[] = [];
  const fires: { connectionId: number; title: string; description: string; scope: Scope }[] = [];
  for (const [connectionId, topology] of context.connections) {
    const scope = { connectionId, clusterId: topology.clusterId, groupId: topology.groupId };
    const existing = openByConnection.get(connectionId);
    if (!topology.monitored || topology.connectionError === null) {
      if (existing) {
        clears.push({ id: existing.id, scope });
      }
      continue;
    }
    if (existing) {
      if (existing.description !== topology.connectionError) {
        described.push({ id: existing.id, description: topology.connectionError });
      }
      continue;
    }
    if (context.blackedOut(connectionId, null)) {
      continue;
    }
    fires.push({
      connectionId,
      title: `Connection error: ${topology.name}`,
      description: topology.connectionError,
      scope,
    });
  }
  if (clears.length === 0 && described.length === 0 && fires.length === 0) {
    return;
  }
  await writePass(sql, async (tx) => {
    await clearAlerts(tx, clears, now);
    if (described.length > 0) {
      await tx`
        update alerts a set description = k.description, last_updated = ${iso}::timestamptz
        from unnest(${described.map((d) => d.id)}::bigint[], ${described.map((d) => d.description)}::text[]) k(id, description)
        where a.id = k.id`;
    }
    if (fires.length === 0) {
      return;
    }
    const inserted = await tx<{ id: number; connection_id: number }[]>`
      insert into alerts (alert_type, connection_id, severity, title, description, status, triggered_at, last_updated)
      select 'connection', k.connection_id, 'critical', k.title, k.description, 'active', ${iso}::timestamptz, ${iso}::timestamptz
      from unnest(${fires.map((f) => f.connectionId)}::int[], ${fires.map((f) => f.title)}::text[],
        ${fires.map((f) => f.description)}::text[]) with ordinality k(connection_id, title, description, n)
      order by k.n
      on conflict do nothing returning id::int as id, connection_id`;
    const scopeOf = new Map(fires.map((f) => [f.connectionId, f.scope]));
    const opened: { alertId: number; scope: Scope }[] = [];
    for (const row of inserted) {
      const scope = scopeOf.get(row.connection_id);
      if (scope) {
        logger.info({ alertId: row.id, connectionId: row.connection_id }, "connection alert fired");
        opened.push({ alertId: row.id, scope });
      }
    }
    await enqueueEach(tx, now, opened, "alert_fire");
  });
}
