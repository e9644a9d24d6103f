import { deleteConnection } from "@dbmon/contract";
import { NotFound } from "../../errors.js";
import { implement } from "../../http/operations.js";

export const deleteConnectionHandler = implement(deleteConnection, async (c) => {
  if (!(await c.get("services").connections.delete(c.req.valid("param").id))) {
    throw new NotFound("Connection not found");
  }
  return c.body(null, 204);
});
