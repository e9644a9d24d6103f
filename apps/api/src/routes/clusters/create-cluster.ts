import { createCluster } from "@dbmon/contract";
import { presentCluster } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const createClusterHandler = implement(createCluster, async (c) => {
  const cluster = await c.get("services").clusters.createCluster(c.get("access"), c.req.valid("json"));
  return c.json(presentCluster(cluster), 201);
});
