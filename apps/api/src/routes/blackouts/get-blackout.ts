import { getBlackout } from "@dbmon/contract";
import {
  type BlackoutRow,
  blackoutSelect,
  presentBlackout,
  targetVisible,
} from "../../alerting/blackouts.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetBlackout(app: App): void {
  app.openapi(guarded(getBlackout, {}), async (c) => {
    const { id } = c.req.valid("param");
    const sql = c.get("services").datastore.sql;
    const [row] = await sql<BlackoutRow[]>`${blackoutSelect(sql)} where id = ${id}`;
    if (!row || !(await targetVisible(c.get("access"), sql, row))) {
      throw new ApiError(404, "Blackout not found");
    }
    return c.json(presentBlackout(row), 200);
  });
}
