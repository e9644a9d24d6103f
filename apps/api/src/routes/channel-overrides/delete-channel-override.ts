import { deleteChannelOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteChannelOverrideHandler = implement(deleteChannelOverride, async (c) => {
  const { scope, scopeId, channelId } = c.req.valid("param");
  await c.get("services").channelOverrides.remove(c.get("access"), scope, scopeId, channelId);
  return c.json({ status: "ok" }, 200);
});
