import { updateNotificationChannel } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateNotificationChannelHandler = implement(updateNotificationChannel, async (c) =>
  c.json(
    await c.get("services").notificationChannels.update(c.req.valid("param").id, c.req.valid("json")),
    200,
  ),
);
