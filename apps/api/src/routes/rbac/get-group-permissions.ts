import { getGroupPermissions } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup } from "./present.js";

export function registerGetGroupPermissions(app: App): void {
  app.openapi(guarded(getGroupPermissions, { superuser: true }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    return c.json({ group_id: id, permissions: await auth.groups.permissionGrants(id) }, 200);
  });
}
