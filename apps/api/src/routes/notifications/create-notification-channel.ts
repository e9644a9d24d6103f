import { createNotificationChannel } from "@dbmon/contract";
import { loadChannelView, manageChannelsRefusal, mergedChannel } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerCreateNotificationChannel(app: App): void {
  app.openapi(
    guarded(createNotificationChannel, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { datastore, secretKey } = c.get("services");
      const columns = await mergedChannel(datastore.sql, secretKey, c.req.valid("json"));
      const caller = await c.get("access").requireCaller();
      const [row] = await datastore.sql<{ id: number }[]>`
        insert into notification_channels ${datastore.sql({ ...columns, owner_username: caller.username })}
        returning id`;
      const [channel] = await loadChannelView(datastore.sql, row?.id ?? 0);
      return c.json(channel as NonNullable<typeof channel>, 201);
    },
  );
}
