import { setGroupPermissions } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup, requireKnownPermissions } from "./present.js";

export function registerSetGroupPermissions(app: App): void {
  app.openapi(guarded(setGroupPermissions, { superuser: true }), async (c) => {
    const { id } = c.req.valid("param");
    const { permissions } = c.req.valid("json");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    requireKnownPermissions(permissions);
    await auth.groups.setPermissions(id, permissions);
    return c.json({ group_id: id, permissions: await auth.groups.permissionGrants(id) }, 200);
  });
}
