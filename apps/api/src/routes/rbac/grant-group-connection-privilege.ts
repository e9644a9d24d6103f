import { grantGroupConnectionPrivilege } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup } from "./present.js";

export function registerGrantGroupConnectionPrivilege(app: App): void {
  app.openapi(guarded(grantGroupConnectionPrivilege, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { connection_id, access_level } = c.req.valid("json");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    await auth.groups.grantConnection(id, connection_id, access_level);
    return c.body(null, 204);
  });
}
