import { clearCurrentConnection } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const clearCurrentConnectionHandler = implement(clearCurrentConnection, async (c) => {
  await c.get("services").connections.clearSelection(c.get("access"));
  return c.body(null, 204);
});
