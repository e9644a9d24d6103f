import { updateConnectionCluster } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateConnectionClusterHandler = implement(updateConnectionCluster, async (c) => {
  const info = await c
    .get("services")
    .clusters.changeMembership(c.req.valid("param").id, c.req.valid("json"));
  return c.json(info, 200);
});
