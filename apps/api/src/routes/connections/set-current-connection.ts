import { setCurrentConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { credentialToken } from "./shared.js";

export function registerSetCurrentConnection(app: App): void {
  app.openapi(guarded(setCurrentConnection, {}), async (c) => {
    const { connection_id, database_name } = c.req.valid("json");
    if (connection_id <= 0) {
      throw new ApiError(400, "connection_id is required");
    }
    const access = c.get("access");
    const { connections } = c.get("services");
    const row = await connections.get(connection_id);
    if (!row) {
      throw new ApiError(400, "Connection not found");
    }
    if (!(await access.connectionLevel(row.id))) {
      throw new ApiError(403, "Access denied");
    }
    await connections.select(credentialToken(access.credential), row.id, database_name ?? null);
    return c.json(
      {
        connection_id: row.id,
        database_name: database_name ?? null,
        host: row.host,
        port: row.port,
        name: row.name,
      },
      200,
    );
  });
}
