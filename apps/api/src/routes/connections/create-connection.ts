import { createConnection } from "@dbmon/contract";
import { presentConnection } from "../../connections/store.js";
import { camelCased } from "../../http/camel-case.js";
import { implement } from "../../http/operations.js";

export const createConnectionHandler = implement(createConnection, async (c) => {
  const row = await c.get("services").connections.register(c.get("access"), camelCased(c.req.valid("json")));
  return c.json(presentConnection(row), 201);
});
