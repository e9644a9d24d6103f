import { listNotificationChannels } from "@dbmon/contract";
import { loadChannelView, manageChannelsRefusal } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListNotificationChannels(app: App): void {
  app.openapi(
    guarded(listNotificationChannels, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => c.json(await loadChannelView(c.get("services").datastore.sql), 200),
  );
}
