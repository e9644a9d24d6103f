import { getCurrentConnection } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getCurrentConnectionHandler = implement(getCurrentConnection, async (c) => {
  return c.json(await c.get("services").connections.current(c.get("access")), 200);
});
