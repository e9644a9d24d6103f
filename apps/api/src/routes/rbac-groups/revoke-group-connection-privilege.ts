import { revokeGroupConnectionPrivilege } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const revokeGroupConnectionPrivilegeHandler = implement(revokeGroupConnectionPrivilege, async (c) => {
  const { id, connectionId } = c.req.valid("param");
  await c.get("services").rbac.groups.revokeConnection(id, connectionId);
  return c.body(null, 204);
});
