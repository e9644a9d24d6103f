import { removeGroupMember } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { requireGroup } from "./present.js";

export function registerRemoveGroupMember(app: App): void {
  app.openapi(guarded(removeGroupMember, { permission: "manage_groups" }), async (c) => {
    const { id, type, memberId } = c.req.valid("param");
    const { auth } = c.get("services");
    await requireGroup(auth, id);
    const removed = await auth.groups.removeMember(
      id,
      type === "user" ? { userId: memberId } : { groupId: memberId },
    );
    if (!removed) {
      throw new ApiError(404, "Member not found");
    }
    return c.body(null, 204);
  });
}
