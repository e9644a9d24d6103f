import { setGroupMcpPrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup, requireKnownMcpIdentifiers } from "./present.js";

export function registerSetGroupMcpPrivileges(app: App): void {
  app.openapi(guarded(setGroupMcpPrivileges, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { privileges } = c.req.valid("json");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    await requireKnownMcpIdentifiers(auth, privileges);
    await auth.groups.setMcpGrants(id, privileges);
    return c.json({ group_id: id, privileges: (await auth.groups.grantsOf([id])).mcp }, 200);
  });
}
