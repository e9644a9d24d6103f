import { upsertChannelOverride } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const upsertChannelOverrideHandler = implement(upsertChannelOverride, async (c) => {
  const { scope, scopeId, channelId } = c.req.valid("param");
  await c
    .get("services")
    .channelOverrides.upsert(c.get("access"), scope, scopeId, channelId, c.req.valid("json").enabled);
  return c.json({ status: "ok" }, 200);
});
