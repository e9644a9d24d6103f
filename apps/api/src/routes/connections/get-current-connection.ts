import { getCurrentConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { credentialToken } from "./shared.js";

export function registerGetCurrentConnection(app: App): void {
  app.openapi(guarded(getCurrentConnection, {}), async (c) => {
    const access = c.get("access");
    const { connections } = c.get("services");
    const selection = await connections.selection(credentialToken(access.credential));
    const row = selection && (await connections.get(selection.connectionId));
    if (!selection || !row) {
      throw new ApiError(404, "No database connection selected");
    }
    if (!(await access.connectionLevel(row.id))) {
      throw new ApiError(403, "Access denied");
    }
    return c.json(
      {
        connection_id: row.id,
        database_name: selection.databaseName,
        host: row.host,
        port: row.port,
        name: row.name,
      },
      200,
    );
  });
}
