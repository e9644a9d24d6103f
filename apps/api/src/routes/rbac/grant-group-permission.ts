import { grantGroupPermission } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup, requireKnownPermissions } from "./present.js";

export function registerGrantGroupPermission(app: App): void {
  app.openapi(guarded(grantGroupPermission, { superuser: true }), async (c) => {
    const { id } = c.req.valid("param");
    const { permission } = c.req.valid("json");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    requireKnownPermissions([permission]);
    await auth.groups.grantPermission(id, permission);
    return c.body(null, 204);
  });
}
