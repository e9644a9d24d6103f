import { getConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { presentConnection } from "../../connections/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetConnection(app: App): void {
  app.openapi(guarded(getConnection, { connection: { param: "id", level: "read" } }), async (c) => {
    const row = await c.get("services").connections.get(c.req.valid("param").id);
    if (!row) {
      throw new ApiError(404, "Connection not found");
    }
    return c.json(presentConnection(row), 200);
  });
}
