import { getNotificationChannel } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getNotificationChannelHandler = implement(getNotificationChannel, async (c) =>
  c.json(await c.get("services").notificationChannels.get(c.req.valid("param").id), 200),
);
