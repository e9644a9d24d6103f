import { createClusterGroup } from "@dbmon/contract";
import { presentGroup } from "../../clusters/store.js";
import { implement } from "../../http/operations.js";

export const createClusterGroupHandler = implement(createClusterGroup, async (c) => {
  const group = await c.get("services").clusters.createGroup(c.get("access"), c.req.valid("json"));
  return c.json(presentGroup(group), 201);
});
