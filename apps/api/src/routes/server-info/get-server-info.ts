import { getServerInfo } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetServerInfo(app: App): void {
  app.openapi(
    guarded(getServerInfo, { connection: { param: "connection_id", level: "read" } }),
    async (c) => {
      const info = await c.get("services").serverInfo.read(c.req.valid("param").connection_id);
      if (!info) {
        throw new ApiError(404, "Connection not found");
      }
      // `postgresql` is the reference's name of `dbserver`, kept for its clients (D5).
      return c.json({ ...info, postgresql: info.dbserver, ai_analysis: null }, 200);
    },
  );
}
