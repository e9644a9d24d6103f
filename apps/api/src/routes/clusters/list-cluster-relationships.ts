import { listClusterRelationships } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listClusterRelationshipsHandler = implement(listClusterRelationships, async (c) => {
  const relationships = await c
    .get("services")
    .clusters.relationships(c.get("access"), c.req.valid("param").id);
  return c.json(relationships, 200);
});
