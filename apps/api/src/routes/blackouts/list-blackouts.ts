import { listBlackouts } from "@dbmon/contract";
import { type BlackoutRow, blackoutSelect, presentBlackout, visibleRows } from "../../alerting/blackouts.js";
import { page, queryInt } from "../../alerting/time.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListBlackouts(app: App): void {
  app.openapi(guarded(listBlackouts, {}), async (c) => {
    const query = c.req.valid("query");
    const sql = c.get("services").datastore.sql;
    const groupId = queryInt(query.group_id);
    const clusterId = queryInt(query.cluster_id);
    const connectionId = queryInt(query.connection_id);
    const active = query.active ? query.active === "true" || query.active === "1" : undefined;
    const rows = await sql<BlackoutRow[]>`
      select * from (${blackoutSelect(sql)}) b where true
      ${query.scope ? sql`and scope = ${query.scope}` : sql``}
      ${groupId !== undefined ? sql`and group_id = ${groupId}` : sql``}
      ${clusterId !== undefined ? sql`and cluster_id = ${clusterId}` : sql``}
      ${connectionId !== undefined ? sql`and connection_id = ${connectionId}` : sql``}
      ${active === undefined ? sql`` : sql`and is_active = ${active}`}
      order by start_time desc, id desc`;
    const visible = await visibleRows(c.get("access"), sql, rows);
    const { limit, offset } = page(query.limit, query.offset);
    return c.json(
      { blackouts: visible.slice(offset, offset + limit).map(presentBlackout), total_count: visible.length },
      200,
    );
  });
}
