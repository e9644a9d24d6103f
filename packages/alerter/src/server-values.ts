import type { EvaluationContext } from "./context.js";
import { isServerWide, type MetricValue } from "./metrics.js";

/**
 * Whole-server alerts: a condition of a server (or its host) is one alert per server, not one per
 * connection that reaches it. Its value is evaluated once, under the connection that speaks for the
 * server (`EvaluationContext.speakerOf`, the lowest-id monitored connection at its address), with
 * that connection's overrides and the blackouts of any of the server's connections; the alert is
 * kept under it (`server_wide`), and every connection of the server shares it (the API's alert
 * visibility). When the speaking connection changes, `moveServerAlerts` moves its open alerts.
 */

/**
 * A metric's values with each server's whole-server values (`isServerWide`) once per server and
 * object, under its speaking connection: the value of the lowest-id monitored connection of the
 * server that has one (the speaker's own when it has one, so a probe disabled or failing on it alone
 * does not silence the server). Other values are left as they are.
 */
export function oneValuePerServer(
  metric: string,
  values: readonly MetricValue[],
  context: EvaluationContext,
): MetricValue[] {
  const kept: MetricValue[] = [];
  const byServer = new Map<string, { source: number; value: MetricValue }>();
  for (const value of values) {
    if (!isServerWide(metric, value)) {
      kept.push(value);
      continue;
    }
    const speaker = context.speakerOf(value.connection_id);
    if (speaker === undefined || !context.connections.get(value.connection_id)?.monitored) {
      continue;
    }
    const key = `${speaker}|${value.object_name ?? ""}`;
    const current = byServer.get(key);
    if (!current || value.connection_id < current.source) {
      byServer.set(key, { source: value.connection_id, value: { ...value, connection_id: speaker } });
    }
  }
  return [...kept, ...[...byServer.values()].map((entry) => entry.value)];
}

/**
 * Whether an active blackout silences `metric`'s value: a whole-server value when one covers any
 * connection of its server, any other value when one covers its connection (and database).
 */
export function blackedOutValue(context: EvaluationContext, metric: string, value: MetricValue): boolean {
  return isServerWide(metric, value)
    ? context.serverBlackedOut(value.connection_id)
    : context.blackedOut(value.connection_id, value.database_name);
}
