import { createNotificationChannel } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createNotificationChannelHandler = implement(createNotificationChannel, async (c) => {
  const caller = await c.get("access").requireCaller();
  return c.json(
    await c.get("services").notificationChannels.create(caller.username, c.req.valid("json")),
    201,
  );
});
