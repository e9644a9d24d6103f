import { getGroupConnectionPrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { presentConnectionGrants, requireGroup } from "./present.js";

export function registerGetGroupConnectionPrivileges(app: App): void {
  app.openapi(guarded(getGroupConnectionPrivileges, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    return c.json({ group_id: id, connections: await presentConnectionGrants(auth, id) }, 200);
  });
}
