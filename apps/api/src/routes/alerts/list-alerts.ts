import { ALERT_PAGING, type AlertListQuerySchema, listAlerts } from "@dbmon/contract";
import type { z } from "zod";
import { type AlertFilter, presentAlert } from "../../alerting/alerts.js";
import { parseRfc3339 } from "../../alerting/time.js";
import { implement } from "../../http/operations.js";
import { pageOf } from "../../paging.js";

type AlertListQuery = z.output<typeof AlertListQuerySchema>;

const queryInt = (text: string) => (/^\d{1,15}$/.test(text) ? Number(text) : undefined);

/** `connection_id`, else the well-formed ids of `connection_ids`; undefined for no filter. */
function requestedConnections(query: AlertListQuery): number[] | undefined {
  if (query.connection_id !== undefined) {
    return [query.connection_id];
  }
  const listed = (query.connection_ids ?? "")
    .split(",")
    .map((part) => queryInt(part.trim()))
    .filter((id): id is number => id !== undefined);
  return listed.length > 0 ? listed : undefined;
}

/** The wire query read as a filter. An empty parameter (`?status=`) filters nothing, as it always has. */
function alertFilterOf(query: AlertListQuery): AlertFilter {
  return {
    connectionIds: requestedConnections(query),
    status: query.status || undefined,
    excludeCleared: query.exclude_cleared,
    severity: query.severity || undefined,
    alertType: query.alert_type || undefined,
    triggeredFrom: parseRfc3339(query.start_time),
    triggeredUntil: parseRfc3339(query.end_time),
  };
}

export const listAlertsHandler = implement(listAlerts, async (c) => {
  const query = c.req.valid("query");
  const { alerts, total } = await c
    .get("services")
    .alerts.find(c.get("access"), alertFilterOf(query), pageOf(query.limit, query.offset, ALERT_PAGING));
  return c.json({ alerts: alerts.map(presentAlert), total }, 200);
});
