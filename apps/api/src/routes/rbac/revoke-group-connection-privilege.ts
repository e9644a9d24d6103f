import { revokeGroupConnectionPrivilege } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { requireGroup } from "./present.js";

export function registerRevokeGroupConnectionPrivilege(app: App): void {
  app.openapi(guarded(revokeGroupConnectionPrivilege, { permission: "manage_permissions" }), async (c) => {
    const { id, connectionId } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    if (!(await auth.groups.revokeConnection(id, connectionId))) {
      throw new ApiError(404, "Connection privilege not found");
    }
    return c.body(null, 204);
  });
}
