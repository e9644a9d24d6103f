import { listClusterGroups } from "@dbmon/contract";
import { presentGroup } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const listClusterGroupsHandler = implement(listClusterGroups, async (c) => {
  const groups = await c.get("services").clusters.listGroups(c.get("access"));
  return c.json(groups.map(presentGroup), 200);
});
