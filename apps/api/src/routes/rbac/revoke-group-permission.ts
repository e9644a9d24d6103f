import { revokeGroupPermission } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { requireGroup, requireKnownPermissions } from "./present.js";

export function registerRevokeGroupPermission(app: App): void {
  app.openapi(guarded(revokeGroupPermission, { superuser: true }), async (c) => {
    const { id, permission } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    requireKnownPermissions([permission]);
    if (!(await auth.groups.revokePermission(id, permission))) {
      throw new ApiError(404, "Permission not granted to this group");
    }
    return c.body(null, 204);
  });
}
