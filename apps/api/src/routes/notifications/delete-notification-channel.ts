import { deleteNotificationChannel } from "@dbmon/contract";
import { manageChannelsRefusal } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteNotificationChannel(app: App): void {
  app.openapi(
    guarded(deleteNotificationChannel, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const deleted = await c.get("services").datastore.sql`
        delete from notification_channels where id = ${id} returning id`;
      if (deleted.length === 0) {
        throw new ApiError(404, "Notification channel not found");
      }
      return c.json({ status: "deleted" }, 200);
    },
  );
}
