import { deleteNotificationChannel } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteNotificationChannelHandler = implement(deleteNotificationChannel, async (c) => {
  await c.get("services").notificationChannels.remove(c.req.valid("param").id);
  return c.json({ status: "deleted" }, 200);
});
