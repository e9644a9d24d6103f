import { getNotificationChannel } from "@dbmon/contract";
import { loadChannelView, manageChannelsRefusal } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerGetNotificationChannel(app: App): void {
  app.openapi(
    guarded(getNotificationChannel, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const [channel] = await loadChannelView(c.get("services").datastore.sql, id);
      if (!channel) {
        throw new ApiError(404, "Notification channel not found");
      }
      return c.json(channel, 200);
    },
  );
}
