import { listGroups } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentGroup } from "./present.js";

export const listGroupsHandler = implement(listGroups, async (c) => {
  const groups = await c.get("services").rbac.groups.list();
  return c.json({ groups: groups.map(presentGroup) }, 200);
});
