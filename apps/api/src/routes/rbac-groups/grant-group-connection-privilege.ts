import { grantGroupConnectionPrivilege } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const grantGroupConnectionPrivilegeHandler = implement(grantGroupConnectionPrivilege, async (c) => {
  const { connection_id, access_level } = c.req.valid("json");
  await c.get("services").rbac.groups.grantConnection(c.get("access"), c.req.valid("param").id, {
    connectionId: connection_id,
    accessLevel: access_level,
  });
  return c.body(null, 204);
});
