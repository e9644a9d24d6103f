import { getGroupConnectionPrivileges } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentConnectionAccess } from "../rbac-privileges/present.js";

export const getGroupConnectionPrivilegesHandler = implement(getGroupConnectionPrivileges, async (c) => {
  const { id } = c.req.valid("param");
  const grants = await c.get("services").rbac.groups.connectionGrants(id);
  return c.json({ group_id: id, connections: presentConnectionAccess(grants) }, 200);
});
