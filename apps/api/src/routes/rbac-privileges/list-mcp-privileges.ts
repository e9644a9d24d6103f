import { listMcpPrivileges } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentMcpItem } from "./present.js";

export const listMcpPrivilegesHandler = implement(listMcpPrivileges, async (c) => {
  const items = await c.get("services").rbac.mcpItems();
  return c.json(items.map(presentMcpItem), 200);
});
