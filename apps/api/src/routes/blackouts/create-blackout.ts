import { createBlackout } from "@dbmon/contract";
import { type BlackoutRow, blackoutSelect, presentBlackout, validTarget } from "../../alerting/blackouts.js";
import { parseRfc3339 } from "../../alerting/time.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerCreateBlackout(app: App): void {
  app.openapi(guarded(createBlackout, { permission: "manage_blackouts" }), async (c) => {
    const body = c.req.valid("json");
    const sql = c.get("services").datastore.sql;
    const start = parseRfc3339(body.start_time);
    if (!start) {
      throw new ApiError(400, "Invalid start_time format, expected RFC3339");
    }
    const end = parseRfc3339(body.end_time);
    if (!end) {
      throw new ApiError(400, "Invalid end_time format, expected RFC3339");
    }
    if (end <= start) {
      throw new ApiError(400, "end_time must be after start_time");
    }
    const target = await validTarget(sql, body);
    const caller = await c.get("access").requireCaller();
    const [created] = await sql<{ id: number }[]>`
      insert into blackouts (scope, group_id, cluster_id, connection_id, database_name, reason, start_time, end_time, created_by)
      values (${target.scope}, ${target.groupId}, ${target.clusterId}, ${target.connectionId}, ${target.databaseName},
        ${body.reason}, ${start.toISOString()}, ${end.toISOString()}, ${caller.username})
      returning id::int as id`;
    const [row] = await sql<BlackoutRow[]>`${blackoutSelect(sql)} where id = ${created?.id ?? 0}`;
    return c.json(presentBlackout(row as BlackoutRow), 201);
  });
}
