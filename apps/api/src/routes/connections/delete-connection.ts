import { deleteConnection } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteConnection(app: App): void {
  const requirement = {
    connectionOwner: { param: "id" },
    message:
      "Permission denied: you must be the owner or have the manage_connections permission to delete this connection",
  };
  app.openapi(guarded(deleteConnection, requirement), async (c) => {
    if (!(await c.get("services").connections.delete(c.req.valid("param").id))) {
      throw new ApiError(404, "Connection not found");
    }
    return c.body(null, 204);
  });
}
