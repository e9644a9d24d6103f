import { updateConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import { SELF_CONNECTION_SHARING_REFUSED } from "../../connections/self-monitoring.js";
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
    // Sharing grants read_write to every manage_connections holder; dbmon's own datastore is never shared.
    if (body.is_shared === true && (await services.connections.get(id))?.isLocal) {
      throw new ApiError(400, SELF_CONNECTION_SHARING_REFUSED);
    }
    await checkReachable(services, body);
    const row = await services.connections.update(id, body);
    if (!row) {
      throw new ApiError(404, "Connection not found");
    }
    return c.json(presentConnection(row), 200);
  });
}
