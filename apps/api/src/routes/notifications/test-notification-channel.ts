import { ChannelConfigError, deliver, loadChannels, testMessage } from "@dbmon/alerter";
import { testNotificationChannel } from "@dbmon/contract";
import { manageChannelsRefusal } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerTestNotificationChannel(app: App): void {
  app.openapi(
    guarded(testNotificationChannel, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { datastore, secretKey, outboundHosts, clock, logger } = c.get("services");
      const [channel] = await loadChannels(datastore.sql, secretKey, [id]);
      if (!channel) {
        throw new ApiError(404, "Notification channel not found");
      }
      const body = c.req.header("content-type")?.includes("application/json") ? c.req.valid("json") : {};
      const recipients = body.recipient_email?.trim() ? [body.recipient_email.trim()] : channel.recipients;
      let delivery: Awaited<ReturnType<typeof deliver>>;
      try {
        delivery = await deliver(channel, testMessage(channel, clock.now()), outboundHosts, recipients);
      } catch (error) {
        if (error instanceof ChannelConfigError) {
          throw new ApiError(400, error.message);
        }
        throw error;
      }
      if (!delivery.ok) {
        logger.warn({ channelId: id, error: delivery.error }, "test notification failed");
        throw new ApiError(
          502,
          channel.channelType === "email" ? "Failed to send test email" : "Failed to send test webhook",
        );
      }
      return c.json({ status: "sent" }, 200);
    },
  );
}
