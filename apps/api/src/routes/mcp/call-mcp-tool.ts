import { callMcpTool } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const callMcpToolHandler = implement(callMcpTool, async (c) => {
  const { name, arguments: args } = c.req.valid("json");
  const services = c.get("services");
  const context = { access: c.get("access"), services, signal: c.req.raw.signal };
  return c.json(await services.mcpTools.call(context, name, args ?? {}), 200);
});
