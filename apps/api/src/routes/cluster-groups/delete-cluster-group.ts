import { deleteClusterGroup } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteClusterGroupHandler = implement(deleteClusterGroup, async (c) => {
  await c.get("services").clusters.deleteGroup(c.get("access"), c.req.valid("param").id);
  return c.body(null, 204);
});
