import { updateConnection } from "@dbmon/contract";
import { presentConnection } from "../../connections/store.js";
import { camelCased } from "../../http/camel-case.js";
import { implement } from "../../http/operations.js";

export const updateConnectionHandler = implement(updateConnection, async (c) => {
  const { id } = c.req.valid("param");
  const row = await c
    .get("services")
    .connections.change(c.get("access"), id, camelCased(c.req.valid("json")));
  return c.json(presentConnection(row), 200);
});
