import { getBlackoutSchedule } from "@dbmon/contract";
import { presentSchedule, type ScheduleRow, targetVisible } from "../../alerting/blackouts.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetBlackoutSchedule(app: App): void {
  app.openapi(guarded(getBlackoutSchedule, {}), async (c) => {
    const { id } = c.req.valid("param");
    const sql = c.get("services").datastore.sql;
    const [row] = await sql<ScheduleRow[]>`select * from blackout_schedules where id = ${id}`;
    if (!row || !(await targetVisible(c.get("access"), sql, row))) {
      throw new ApiError(404, "Blackout schedule not found");
    }
    return c.json(presentSchedule(row), 200);
  });
}
