import { deleteClusterRelationship } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteClusterRelationshipHandler = implement(deleteClusterRelationship, async (c) => {
  const { id, relationshipId } = c.req.valid("param");
  await c.get("services").clusters.deleteRelationship(id, relationshipId);
  return c.body(null, 204);
});
