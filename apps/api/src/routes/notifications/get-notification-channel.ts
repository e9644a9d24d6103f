import { getNotificationChannel } from "@dbmon/contract";
import { presentChannel } from "../../alerting/channels.js";
import { implement } from "../../http/operations.js";

export const getNotificationChannelHandler = implement(getNotificationChannel, async (c) =>
  c.json(presentChannel(await c.get("services").notificationChannels.get(c.req.valid("param").id)), 200),
);
