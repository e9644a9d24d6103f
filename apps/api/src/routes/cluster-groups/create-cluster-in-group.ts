import { createClusterInGroup } from "@dbmon/contract";
import { presentCluster } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const createClusterInGroupHandler = implement(createClusterInGroup, async (c) => {
  const cluster = await c
    .get("services")
    .clusters.createClusterInGroup(c.get("access"), c.req.valid("param").id, c.req.valid("json"));
  return c.json(presentCluster(cluster), 201);
});
