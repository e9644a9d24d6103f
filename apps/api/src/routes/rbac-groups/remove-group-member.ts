import { removeGroupMember } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const removeGroupMemberHandler = implement(removeGroupMember, async (c) => {
  const { id, type, memberId } = c.req.valid("param");
  const member = type === "user" ? { userId: memberId } : { groupId: memberId };
  await c.get("services").rbac.groups.removeMember(id, member);
  return c.body(null, 204);
});
