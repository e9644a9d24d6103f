import { setGroupConnectionPrivileges } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentConnectionAccess } from "../rbac-privileges/present.js";

export const setGroupConnectionPrivilegesHandler = implement(setGroupConnectionPrivileges, async (c) => {
  const { id } = c.req.valid("param");
  const { connections } = c.req.valid("json");
  const grants = await c.get("services").rbac.groups.setConnectionGrants(
    c.get("access"),
    id,
    connections.map((grant) => ({ connectionId: grant.connection_id, accessLevel: grant.access_level })),
  );
  return c.json({ group_id: id, connections: presentConnectionAccess(grants) }, 200);
});
