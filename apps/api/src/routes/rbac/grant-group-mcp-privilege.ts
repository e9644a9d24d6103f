import { grantGroupMcpPrivilege } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup, requireKnownMcpIdentifiers } from "./present.js";

export function registerGrantGroupMcpPrivilege(app: App): void {
  app.openapi(guarded(grantGroupMcpPrivilege, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { privilege } = c.req.valid("json");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    await requireKnownMcpIdentifiers(auth, [privilege]);
    await auth.groups.grantMcp(id, privilege);
    return c.body(null, 204);
  });
}
