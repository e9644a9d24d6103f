import { updateConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { presentConnection } from "../../connections/store.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { checkReachable } from "./shared.js";

export function registerUpdateConnection(app: App): void {
  const requirement = {
    connectionOwner: { param: "id" },
    message:
      "Permission denied: you must be the owner or have the manage_connections permission to update this connection",
  };
  app.openapi(guarded(updateConnection, requirement), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const services = c.get("services");
    if (body.is_shared === true && !(await c.get("access").hasPermission("manage_connections"))) {
      throw new ApiError(403, "Permission denied: you do not have permission to make connections shared");
    }
    await checkReachable(services, body);
    const row = await services.connections.update(id, body);
    if (!row) {
      throw new ApiError(404, "Connection not found");
    }
    return c.json(presentConnection(row), 200);
  });
}
