import { listConnectionDatabases } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listConnectionDatabasesHandler = implement(listConnectionDatabases, async (c) => {
  const { connections } = c.get("services");
  const row = await connections.require(c.req.valid("param").id);
  return c.json(await connections.databases(row), 200);
});
