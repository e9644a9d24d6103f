import { createNotificationChannel } from "@dbmon/contract";
import { presentChannel } from "../../alerting/channels.js";
import { camelCased } from "../../http/camel-case.js";
import { implement } from "../../http/operations.js";

export const createNotificationChannelHandler = implement(createNotificationChannel, async (c) => {
  const caller = await c.get("access").requireCaller();
  return c.json(
    presentChannel(
      await c.get("services").notificationChannels.create(caller.username, camelCased(c.req.valid("json"))),
    ),
    201,
  );
});
