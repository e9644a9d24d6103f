import { listBlackoutSchedules } from "@dbmon/contract";
import { presentSchedule, type ScheduleRow, visibleRows } from "../../alerting/blackouts.js";
import { page, queryInt } from "../../alerting/time.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListBlackoutSchedules(app: App): void {
  app.openapi(guarded(listBlackoutSchedules, {}), async (c) => {
    const query = c.req.valid("query");
    const sql = c.get("services").datastore.sql;
    const groupId = queryInt(query.group_id);
    const clusterId = queryInt(query.cluster_id);
    const connectionId = queryInt(query.connection_id);
    const enabled = query.enabled ? query.enabled === "true" || query.enabled === "1" : undefined;
    const rows = await sql<ScheduleRow[]>`
      select * from blackout_schedules where true
      ${query.scope ? sql`and scope = ${query.scope}` : sql``}
      ${groupId !== undefined ? sql`and group_id = ${groupId}` : sql``}
      ${clusterId !== undefined ? sql`and cluster_id = ${clusterId}` : sql``}
      ${connectionId !== undefined ? sql`and connection_id = ${connectionId}` : sql``}
      ${enabled === undefined ? sql`` : sql`and enabled = ${enabled}`}
      order by name, id`;
    const visible = await visibleRows(c.get("access"), sql, rows);
    const { limit, offset } = page(query.limit, query.offset);
    return c.json(
      { schedules: visible.slice(offset, offset + limit).map(presentSchedule), total_count: visible.length },
      200,
    );
  });
}
