import { testNotificationChannel } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const testNotificationChannelHandler = implement(testNotificationChannel, async (c) => {
  // The body is optional: without a JSON content type there is nothing to read.
  const body = c.req.header("content-type")?.includes("application/json") ? c.req.valid("json") : {};
  await c.get("services").notificationChannels.test(c.req.valid("param").id, body.recipient_email);
  return c.json({ status: "sent" }, 200);
});
