import { setGroupConnectionPrivileges } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { presentConnectionGrants, requireGroup } from "./present.js";

export function registerSetGroupConnectionPrivileges(app: App): void {
  app.openapi(guarded(setGroupConnectionPrivileges, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { connections } = c.req.valid("json");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    await auth.groups.setConnectionGrants(
      id,
      connections.map((grant) => ({ connectionId: grant.connection_id, accessLevel: grant.access_level })),
    );
    return c.json({ group_id: id, connections: await presentConnectionGrants(auth, id) }, 200);
  });
}
