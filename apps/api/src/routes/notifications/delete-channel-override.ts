import { deleteChannelOverride } from "@dbmon/contract";
import { manageChannelsRefusal } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerDeleteChannelOverride(app: App): void {
  app.openapi(
    guarded(deleteChannelOverride, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { scope, scopeId, channelId } = c.req.valid("param");
      await c.get("services").datastore.sql`
        delete from notification_channel_overrides
        where channel_id = ${channelId} and scope = ${scope} and scope_id = ${scopeId}`;
      return c.json({ status: "ok" }, 200);
    },
  );
}
