import { revokeGroupMcpPrivilege } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { requireGroup } from "./present.js";

export function registerRevokeGroupMcpPrivilege(app: App): void {
  app.openapi(guarded(revokeGroupMcpPrivilege, { permission: "manage_permissions" }), async (c) => {
    const { id } = c.req.valid("param");
    const { name } = c.req.valid("query");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    if (!(await auth.groups.revokeMcp(id, name))) {
      throw new ApiError(404, "Privilege not granted to this group");
    }
    return c.body(null, 204);
  });
}
