import { listAlerts } from "@dbmon/contract";
import { type AlertRow, alertSelect, presentAlert } from "../../alerting/alerts.js";
import { visibleConnectionFilter } from "../../alerting/scopes.js";
import { page, parseRfc3339, queryInt } from "../../alerting/time.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListAlerts(app: App): void {
  app.openapi(guarded(listAlerts, {}), async (c) => {
    const query = c.req.valid("query");
    const sql = c.get("services").datastore.sql;
    let ids: number[] | undefined;
    const one = queryInt(query.connection_id);
    if (one !== undefined) {
      ids = [one];
    } else if (query.connection_ids) {
      const listed = query.connection_ids.split(",").map((part) => queryInt(part.trim()));
      const valid = listed.filter((id): id is number => id !== undefined);
      ids = valid.length > 0 ? valid : undefined;
    }
    const visible = await visibleConnectionFilter(c.get("access"));
    if (visible) {
      ids = ids ? ids.filter((id) => visible.includes(id)) : visible;
    }
    if (ids && ids.length === 0) {
      return c.json({ alerts: [], total: 0 }, 200);
    }
    const start = parseRfc3339(query.start_time);
    const end = parseRfc3339(query.end_time);
    const excludeCleared = query.exclude_cleared === "true" || query.exclude_cleared === "1";
    const where = sql`
      where true
      ${ids ? sql`and a.connection_id in ${sql(ids)}` : sql``}
      ${query.status ? sql`and a.status = ${query.status}` : sql``}
      ${excludeCleared ? sql`and a.cleared_at is null` : sql``}
      ${query.severity ? sql`and a.severity = ${query.severity}` : sql``}
      ${query.alert_type ? sql`and a.alert_type = ${query.alert_type}` : sql``}
      ${start ? sql`and a.triggered_at >= ${start.toISOString()}` : sql``}
      ${end ? sql`and a.triggered_at <= ${end.toISOString()}` : sql``}`;
    const { limit, offset } = page(query.limit, query.offset);
    const [rows, [count]] = await Promise.all([
      sql<
        AlertRow[]
      >`${alertSelect(sql)} ${where} order by a.triggered_at desc, a.id desc limit ${limit} offset ${offset}`,
      sql<{ total: number }[]>`select count(*)::int as total from alerts a ${where}`,
    ]);
    return c.json({ alerts: rows.map(presentAlert), total: count?.total ?? 0 }, 200);
  });
}
