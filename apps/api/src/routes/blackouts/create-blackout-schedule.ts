import { createBlackoutSchedule } from "@dbmon/contract";
import { presentSchedule, type ScheduleRow } from "../../alerting/blackouts.js";
import { validSchedule } from "../../alerting/schedule-input.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerCreateBlackoutSchedule(app: App): void {
  app.openapi(guarded(createBlackoutSchedule, { permission: "manage_blackouts" }), async (c) => {
    const sql = c.get("services").datastore.sql;
    const s = await validSchedule(sql, c.req.valid("json"));
    const caller = await c.get("access").requireCaller();
    const [row] = await sql<ScheduleRow[]>`
      insert into blackout_schedules (scope, group_id, cluster_id, connection_id, database_name, name, cron_expression,
        duration_minutes, timezone, reason, enabled, created_by)
      values (${s.target.scope}, ${s.target.groupId}, ${s.target.clusterId}, ${s.target.connectionId},
        ${s.target.databaseName}, ${s.name}, ${s.cron}, ${s.durationMinutes}, ${s.timezone}, ${s.reason}, ${s.enabled},
        ${caller.username})
      returning *`;
    return c.json(presentSchedule(row as ScheduleRow), 201);
  });
}
