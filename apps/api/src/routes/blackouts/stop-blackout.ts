import { stopBlackout } from "@dbmon/contract";
import { type BlackoutRow, blackoutSelect, presentBlackout } from "../../alerting/blackouts.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerStopBlackout(app: App): void {
  app.openapi(guarded(stopBlackout, { permission: "manage_blackouts" }), async (c) => {
    const { id } = c.req.valid("param");
    const sql = c.get("services").datastore.sql;
    // A window that has not started yet ends before it starts: it never takes effect.
    const stopped = await sql`
      update blackouts set end_time = now(), start_time = least(start_time, now())
      where id = ${id} and end_time >= now() returning id`;
    if (stopped.length === 0) {
      throw new ApiError(404, "Blackout not found or not currently active");
    }
    const [row] = await sql<BlackoutRow[]>`${blackoutSelect(sql)} where id = ${id}`;
    return c.json(presentBlackout({ ...(row as BlackoutRow), is_active: false }), 200);
  });
}
