import { deleteBlackout } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteBlackout(app: App): void {
  app.openapi(guarded(deleteBlackout, { permission: "manage_blackouts" }), async (c) => {
    const { id } = c.req.valid("param");
    const deleted = await c.get("services").datastore
      .sql`delete from blackouts where id = ${id} returning id`;
    if (deleted.length === 0) {
      throw new ApiError(404, "Blackout not found");
    }
    return c.json({ status: "deleted" }, 200);
  });
}
