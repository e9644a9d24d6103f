import { updateBlackoutSchedule } from "@dbmon/contract";
import { presentSchedule, type ScheduleRow } from "../../alerting/blackouts.js";
import { validSchedule } from "../../alerting/schedule-input.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUpdateBlackoutSchedule(app: App): void {
  app.openapi(guarded(updateBlackoutSchedule, { permission: "manage_blackouts" }), async (c) => {
    const { id } = c.req.valid("param");
    const sql = c.get("services").datastore.sql;
    const s = await validSchedule(sql, c.req.valid("json"));
    const [row] = await sql<ScheduleRow[]>`
      update blackout_schedules set scope = ${s.target.scope}, group_id = ${s.target.groupId},
        cluster_id = ${s.target.clusterId}, connection_id = ${s.target.connectionId},
        database_name = ${s.target.databaseName}, name = ${s.name}, cron_expression = ${s.cron},
        duration_minutes = ${s.durationMinutes}, timezone = ${s.timezone}, reason = ${s.reason},
        enabled = ${s.enabled}, updated_at = now()
      where id = ${id} returning *`;
    if (!row) {
      throw new ApiError(404, "Blackout schedule not found");
    }
    return c.json(presentSchedule(row), 200);
  });
}
