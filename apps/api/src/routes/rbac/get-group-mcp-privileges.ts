import { getGroupMcpPrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireGroup } from "./present.js";

export function registerGetGroupMcpPrivileges(app: App): void {
  app.openapi(guarded(getGroupMcpPrivileges, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    const grants = await auth.groups.grantsOf([id]);
    return c.json({ group_id: id, privileges: grants.mcp }, 200);
  });
}
