import { setGroupMcpPrivileges } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const setGroupMcpPrivilegesHandler = implement(setGroupMcpPrivileges, async (c) => {
  const { id } = c.req.valid("param");
  const { privileges } = c.req.valid("json");
  return c.json(
    {
      group_id: id,
      privileges: await c.get("services").rbac.groups.setMcpGrants(c.get("access"), id, privileges),
    },
    200,
  );
});
