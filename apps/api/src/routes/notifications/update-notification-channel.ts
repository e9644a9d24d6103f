import { updateNotificationChannel } from "@dbmon/contract";
import { loadChannelView, manageChannelsRefusal, mergedChannel } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerUpdateNotificationChannel(app: App): void {
  app.openapi(
    guarded(updateNotificationChannel, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const { datastore, secretKey } = c.get("services");
      const columns = await mergedChannel(datastore.sql, secretKey, c.req.valid("json"), id);
      await datastore.sql`
        update notification_channels set ${datastore.sql({ ...columns })}, updated_at = now() where id = ${id}`;
      const [channel] = await loadChannelView(datastore.sql, id);
      return c.json(channel as NonNullable<typeof channel>, 200);
    },
  );
}
