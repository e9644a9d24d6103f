import { updateBlackout } from "@dbmon/contract";
import { type BlackoutRow, blackoutSelect, presentBlackout } from "../../alerting/blackouts.js";
import { parseRfc3339 } from "../../alerting/time.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUpdateBlackout(app: App): void {
  app.openapi(guarded(updateBlackout, { permission: "manage_blackouts" }), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const sql = c.get("services").datastore.sql;
    const [existing] = await sql<BlackoutRow[]>`${blackoutSelect(sql)} where id = ${id}`;
    if (!existing) {
      throw new ApiError(404, "Blackout not found");
    }
    let end: Date | null = null;
    if (body.end_time !== undefined) {
      end = parseRfc3339(body.end_time) ?? null;
      if (!end) {
        throw new ApiError(400, "Invalid end_time format, expected RFC3339");
      }
      if (end <= new Date(existing.start_time)) {
        throw new ApiError(400, "end_time must be after start_time");
      }
    }
    await sql`
      update blackouts set reason = coalesce(${body.reason ?? null}, reason),
        end_time = coalesce(${end?.toISOString() ?? null}::timestamptz, end_time)
      where id = ${id}`;
    const [row] = await sql<BlackoutRow[]>`${blackoutSelect(sql)} where id = ${id}`;
    return c.json(presentBlackout(row as BlackoutRow), 200);
  });
}
