import { updateClusterGroup } from "@dbmon/contract";
import { presentGroup } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const updateClusterGroupHandler = implement(updateClusterGroup, async (c) => {
  const group = await c
    .get("services")
    .clusters.updateGroup(c.get("access"), c.req.valid("param").id, c.req.valid("json"));
  return c.json(presentGroup(group), 200);
});
