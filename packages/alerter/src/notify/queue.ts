import { readableNumberSql, type SecretKey, type Sql } from "@dbmon/datastore";
import type { HostPolicy } from "@dbmon/monitoring";
import type { Fragment, TransactionSql } from "postgres";
import { type Channel, loadChannels } from "./channel.js";
import { type AlertFacts, alertMessage, type NotificationType } from "./messages.js";
import { ChannelConfigError, type Delivery, deliver } from "./transport.js";

/** Where a pass's statements run: the pool, or the pass's transaction. */
export type Queryable = Sql | TransactionSql;

/** Minutes to wait before the 2nd, 3rd and 4th attempt (the last value repeats). */
export const RETRY_BACKOFF_MINUTES = [5, 15, 60];
/** The first attempt and three retries. */
export const MAX_ATTEMPTS = 4;
/** How long a claimed notification is reserved for the alerter sending it. */
const CLAIM_SECONDS = 120;

export interface Scope {
  connectionId: number;
  clusterId: number | null;
  groupId: number | null;
}

/**
 * Queues, in one statement, a notification of each alert (fire or clear notifications of a pass,
 * in the order of `alerts`) on every channel that receives alerts of its connection.
 */
export async function enqueueEach(
  sql: Queryable,
  now: Date,
  alerts: readonly { alertId: number; scope: Scope }[],
  type: NotificationType,
): Promise<number> {
  if (alerts.length === 0) {
    return 0;
  }
  const rows = await sql`
    insert into notification_history (alert_id, channel_id, notification_type, reminder_count, max_attempts, next_retry_at, created_at)
    select k.alert_id, ch.id, ${type}, 0, ${MAX_ATTEMPTS}, ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
    from unnest(${alerts.map((a) => a.alertId)}::bigint[], ${alerts.map((a) => a.scope.connectionId)}::int[],
      ${alerts.map((a) => a.scope.clusterId ?? -1)}::int[], ${alerts.map((a) => a.scope.groupId ?? -1)}::int[])
      with ordinality k(alert_id, connection_id, cluster_id, group_id, n)
    cross join notification_channels ch
    where ch.enabled and ${receivesFrom(sql, sql`k.connection_id`, sql`k.cluster_id`, sql`k.group_id`)}
    order by k.n, ch.id
    returning id`;
  return rows.length;
}

/**
 * SQL condition: channel `ch` receives alerts of the connection, cluster and group given as SQL (-1:
 * none): the first of the server, cluster and group overrides that exists, else the channel's
 * estate default.
 */
function receivesFrom(sql: Queryable, connectionId: Fragment, clusterId: Fragment, groupId: Fragment) {
  return sql`coalesce(
    (select o.enabled from notification_channel_overrides o
     where o.channel_id = ch.id and o.scope = 'server' and o.scope_id = ${connectionId}),
    (select o.enabled from notification_channel_overrides o
     where o.channel_id = ch.id and o.scope = 'cluster' and o.scope_id = ${clusterId}),
    (select o.enabled from notification_channel_overrides o
     where o.channel_id = ch.id and o.scope = 'group' and o.scope_id = ${groupId}),
    ch.is_estate_default)`;
}

interface Claimed {
  id: number;
  alert_id: number;
  channel_id: number;
  notification_type: NotificationType;
  reminder_count: number;
  attempt_count: number;
  max_attempts: number;
}

/** A send whose outcome could not be recorded (the datastore went away meanwhile). */
export interface UnrecordedDelivery {
  row: Claimed;
  delivery: Delivery;
  at: Date;
}

export interface DispatchOptions {
  sql: Sql;
  secretKey: SecretKey;
  hosts: HostPolicy;
  now: Date;
  /** Identifies this alerter in the claim and in the attempt history. */
  instanceId: string;
  batch?: number;
  /**
   * Sends whose outcome is not recorded yet, kept by the alerter across dispatches: a send whose
   * recording fails because the datastore is unavailable (`unavailable`) is added, and the next
   * dispatch records them before it claims anything. Otherwise the row would stay claimed, its claim
   * would lapse, and it would be sent again.
   */
  unrecorded?: { pending: UnrecordedDelivery[]; unavailable(error: unknown): boolean };
}

/**
 * Sends the notifications that are due. Rows are claimed with FOR UPDATE SKIP LOCKED and reserved
 * for this alerter, so that several alerters never send the same notification; a claim that was not
 * finished (the alerter died) may be taken over when it lapses.
 */
export async function dispatchDue(options: DispatchOptions): Promise<number> {
  const { sql, now, instanceId, unrecorded } = options;
  // Oldest first; one that fails again ends this dispatch (the datastore is still away).
  while (unrecorded && unrecorded.pending.length > 0) {
    const next = unrecorded.pending[0] as UnrecordedDelivery;
    await record(sql, next.row, next.delivery, { ...options, now: next.at });
    unrecorded.pending.shift();
  }
  const iso = now.toISOString();
  // The CTE is evaluated once (a subquery in WHERE may be re-run and claim rows it never returns).
  const claimed = await sql<Claimed[]>`
    with due as materialized (
      select id from notification_history
      where (status in ('pending', 'retrying') and next_retry_at <= ${iso}::timestamptz)
         or (status = 'sending' and claimed_until < ${iso}::timestamptz)
      order by id for update skip locked limit ${options.batch ?? 20})
    update notification_history n set status = 'sending', attempt_count = n.attempt_count + 1,
      claimed_by = ${instanceId}, claimed_until = ${iso}::timestamptz + make_interval(secs => ${CLAIM_SECONDS})
    from due where n.id = due.id
    returning n.id::int as id, n.alert_id::int as alert_id, n.channel_id, n.notification_type, n.reminder_count,
      n.attempt_count, n.max_attempts`;
  if (claimed.length === 0) {
    return 0;
  }
  const channels = new Map(
    (await loadChannels(sql, options.secretKey, [...new Set(claimed.map((c) => c.channel_id))])).map((c) => [
      c.id,
      c,
    ]),
  );
  await Promise.all(
    claimed.map(async (row) => {
      const channel = channels.get(row.channel_id);
      const alert = await alertFacts(sql, row.alert_id);
      let delivery: Delivery;
      if (!channel || !alert) {
        delivery = { ok: false, error: "The channel or the alert no longer exists" };
      } else {
        delivery = await send(channel, alert, row, options);
      }
      try {
        await record(sql, row, delivery, options);
      } catch (error) {
        if (!unrecorded?.unavailable(error)) {
          throw error;
        }
        unrecorded.pending.push({ row, delivery, at: now });
      }
    }),
  );
  return claimed.length;
}

async function send(
  channel: Channel,
  alert: AlertFacts,
  row: Claimed,
  options: DispatchOptions,
): Promise<Delivery> {
  try {
    return await deliver(
      channel,
      alertMessage(channel, alert, row.notification_type, row.reminder_count, options.now),
      options.hosts,
    );
  } catch (error) {
    return {
      ok: false,
      error: error instanceof ChannelConfigError ? error.message : (error as Error).message,
    };
  }
}

async function record(sql: Sql, row: Claimed, delivery: Delivery, options: DispatchOptions): Promise<void> {
  const iso = options.now.toISOString();
  const backoff =
    RETRY_BACKOFF_MINUTES[Math.min(row.attempt_count - 1, RETRY_BACKOFF_MINUTES.length - 1)] ?? 60;
  const status = delivery.ok ? "sent" : row.attempt_count >= row.max_attempts ? "failed" : "retrying";
  await sql.begin(async (tx) => {
    await tx`
      insert into notification_attempts (notification_id, attempt, succeeded, response_code, error_message, sent_by, attempted_at)
      values (${row.id}, ${row.attempt_count}, ${delivery.ok}, ${delivery.responseCode ?? null}, ${delivery.error ?? null},
        ${options.instanceId}, ${iso}::timestamptz)`;
    await tx`
      update notification_history set status = ${status}, claimed_until = null,
        response_code = ${delivery.responseCode ?? null}, error_message = ${delivery.error ?? null},
        sent_at = case when ${delivery.ok} then ${iso}::timestamptz else sent_at end,
        next_retry_at = ${iso}::timestamptz + make_interval(mins => ${backoff})
      where id = ${row.id} and claimed_by = ${options.instanceId}`;
    if (delivery.ok && row.notification_type === "alert_clear") {
      await tx`delete from notification_reminder_state where alert_id = ${row.alert_id} and channel_id = ${row.channel_id}`;
    }
  });
}

/** The alert as a notification describes it, from its current row. */
export async function alertFacts(sql: Sql, alertId: number): Promise<AlertFacts | undefined> {
  const [row] = await sql<
    {
      id: number;
      alert_type: string;
      title: string;
      description: string;
      severity: string;
      status: string;
      triggered_at: string;
      cleared_at: string | null;
      connection_id: number;
      name: string | null;
      host: string | null;
      port: number | null;
      database_name: string | null;
      metric_name: string | null;
      metric_value: number | null;
      threshold_value: number | null;
      operator: string | null;
    }[]
  >`
    select a.id::int as id, a.alert_type, a.title, a.description, a.severity, a.status, a.triggered_at, a.cleared_at,
      a.connection_id, c.name, c.host, c.port, a.database_name, a.metric_name,
      ${sql.unsafe(readableNumberSql("a.metric_value"))} as metric_value,
      ${sql.unsafe(readableNumberSql("a.threshold_value"))} as threshold_value, a.operator
    from alerts a left join connections c on c.id = a.connection_id where a.id = ${alertId}`;
  if (!row) {
    return undefined;
  }
  return {
    id: row.id,
    alertType: row.alert_type,
    title: row.title,
    description: row.description,
    severity: row.severity,
    status: row.status,
    triggeredAt: new Date(row.triggered_at),
    clearedAt: row.cleared_at ? new Date(row.cleared_at) : null,
    connectionId: row.connection_id,
    serverName: row.name ?? "Unknown",
    serverHost: row.host ?? "",
    serverPort: row.port ?? 0,
    databaseName: row.database_name,
    metricName: row.metric_name,
    metricValue: row.metric_value,
    thresholdValue: row.threshold_value,
    operator: row.operator,
  };
}

/**
 * Queues reminders for active alerts that have been active (or unreminded) for a channel's reminder
 * interval, all in one statement: the reminder state is advanced atomically (a concurrent alerter's
 * advance makes the conflict's condition false), so one alerter queues each reminder.
 */
export async function queueReminders(sql: Sql, now: Date): Promise<number> {
  const iso = now.toISOString();
  const rows = await sql`
    with due as (
      select a.id as alert_id, ch.id as channel_id, a.connection_id, c.cluster_id, cl.group_id
      from alerts a join connections c on c.id = a.connection_id
      left join clusters cl on cl.id = c.cluster_id
      cross join notification_channels ch
      left join notification_reminder_state s on s.alert_id = a.id and s.channel_id = ch.id
      where a.status = 'active' and ch.enabled and ch.reminder_enabled
        and coalesce(s.last_reminder_at, a.triggered_at) <= ${iso}::timestamptz - make_interval(hours => ch.reminder_interval_hours)),
    reminded as (
      insert into notification_reminder_state as s (alert_id, channel_id, last_reminder_at, reminder_count)
      select alert_id, channel_id, ${iso}::timestamptz, 1 from due
      on conflict (alert_id, channel_id) do update set last_reminder_at = excluded.last_reminder_at,
        reminder_count = s.reminder_count + 1
      where s.last_reminder_at <= ${iso}::timestamptz - make_interval(hours => (
        select reminder_interval_hours from notification_channels where id = s.channel_id))
      returning alert_id, channel_id, reminder_count)
    insert into notification_history (alert_id, channel_id, notification_type, reminder_count, max_attempts, next_retry_at, created_at)
    select r.alert_id, r.channel_id, 'reminder', r.reminder_count, ${MAX_ATTEMPTS}, ${iso}::timestamptz, ${iso}::timestamptz
    from reminded r join due d using (alert_id, channel_id) join notification_channels ch on ch.id = r.channel_id
    where ${receivesFrom(sql, sql`d.connection_id`, sql`coalesce(d.cluster_id, -1)`, sql`coalesce(d.group_id, -1)`)}
    order by r.alert_id, r.channel_id
    returning id`;
  return rows.length;
}
