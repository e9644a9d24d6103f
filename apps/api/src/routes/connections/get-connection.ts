import { getConnection } from "@dbmon/contract";
import { presentConnection } from "../../connections/store.js";
import { implement } from "../../http/operations.js";

export const getConnectionHandler = implement(getConnection, async (c) => {
  const row = await c.get("services").connections.require(c.req.valid("param").id);
  return c.json(presentConnection(row), 200);
});
