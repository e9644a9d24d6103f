import { listChannelOverrides } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listChannelOverridesHandler = implement(listChannelOverrides, async (c) => {
  const { scope, scopeId } = c.req.valid("param");
  return c.json(await c.get("services").channelOverrides.list(c.get("access"), scope, scopeId), 200);
});
