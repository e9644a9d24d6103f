import { setConnectionRelationships } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const setConnectionRelationshipsHandler = implement(setConnectionRelationships, async (c) => {
  const { id, connId } = c.req.valid("param");
  const { relationships } = c.req.valid("json");
  return c.json(await c.get("services").clusters.setRelationships(id, connId, relationships), 200);
});
