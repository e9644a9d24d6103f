import { setCurrentConnection } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const setCurrentConnectionHandler = implement(setCurrentConnection, async (c) => {
  const { connection_id, database_name } = c.req.valid("json");
  const selected = await c
    .get("services")
    .connections.select(c.get("access"), connection_id, database_name ?? null);
  return c.json(selected, 200);
});
