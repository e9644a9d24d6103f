import { updateNotificationChannel } from "@dbmon/contract";
import { presentChannel } from "../../alerting/channels.js";
import { camelCased } from "../../http/camel-case.js";
import { implement } from "../../http/operations.js";

export const updateNotificationChannelHandler = implement(updateNotificationChannel, async (c) =>
  c.json(
    presentChannel(
      await c
        .get("services")
        .notificationChannels.update(c.req.valid("param").id, camelCased(c.req.valid("json"))),
    ),
    200,
  ),
);
