import { addGroupMember } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { asApiError } from "./present.js";

export function registerAddGroupMember(app: App): void {
  app.openapi(guarded(addGroupMember, { permission: "manage_groups" }), async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const member =
      body.user_id !== undefined ? { userId: body.user_id } : { groupId: body.group_id as number };
    await c
      .get("services")
      .auth.groups.addMember(id, member)
      .catch((error: unknown) => {
        throw asApiError(error);
      });
    return c.body(null, 204);
  });
}
