import { getServerInfo } from "@dbmon/contract";
import { NotFound } from "../../errors.js";
import { implement } from "../../http/operations.js";

export const getServerInfoHandler = implement(getServerInfo, async (c) => {
  const info = await c.get("services").serverInfo.read(c.req.valid("param").connection_id);
  if (!info) {
    throw new NotFound("Connection not found");
  }
  // `postgresql` is the reference's name of `dbserver`, kept for its clients (D5).
  return c.json({ ...info, postgresql: info.dbserver, ai_analysis: null }, 200);
});
