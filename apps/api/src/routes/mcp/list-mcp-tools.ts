import { listMcpTools } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listMcpToolsHandler = implement(listMcpTools, async (c) =>
  c.json({ tools: await c.get("services").mcpTools.list(c.get("access")) }, 200),
);
