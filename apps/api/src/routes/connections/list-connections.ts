import { listConnections } from "@dbmon/contract";
import { presentConnection } from "../../connections/store.js";
import { implement } from "../../http/operations.js";

export const listConnectionsHandler = implement(listConnections, async (c) => {
  const rows = await c.get("services").connections.list(c.get("access"));
  return c.json(rows.map(presentConnection), 200);
});
