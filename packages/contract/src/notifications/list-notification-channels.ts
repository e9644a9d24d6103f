import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { manageNotificationChannelsRefusal, NotificationChannelSchema } from "./schemas.js";

export const listNotificationChannels = defineOperation({
  method: "get",
  path: "/api/v1/notification-channels",
  operationId: "listNotificationChannels",
  summary: "List channels",
  description: "Ordered by name; secrets are never returned.",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  responses: { 200: jsonResponse(z.array(NotificationChannelSchema), "Channels") },
});
