import { clearConnectionRelationships } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const clearConnectionRelationshipsHandler = implement(clearConnectionRelationships, async (c) => {
  const { id, connId } = c.req.valid("param");
  await c.get("services").clusters.clearRelationships(id, connId);
  return c.body(null, 204);
});
