import { getClusterGroup } from "@dbmon/contract";
import { presentGroup } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const getClusterGroupHandler = implement(getClusterGroup, async (c) => {
  const group = await c.get("services").clusters.group(c.get("access"), c.req.valid("param").id);
  return c.json(presentGroup(group), 200);
});
