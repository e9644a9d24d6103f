import { addGroupMember } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const addGroupMemberHandler = implement(addGroupMember, async (c) => {
  const body = c.req.valid("json");
  // The body names exactly one of the two (checked by its schema).
  const member = body.user_id !== undefined ? { userId: body.user_id } : { groupId: body.group_id as number };
  await c.get("services").rbac.groups.addMember(c.get("access"), c.req.valid("param").id, member);
  return c.body(null, 204);
});
