import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { ChannelIdParamsSchema, EmailRecipientSchema, manageNotificationChannelsRefusal } from "./schemas.js";

export const listEmailRecipients = defineOperation({
  method: "get",
  path: "/api/v1/notification-channels/{id}/recipients",
  operationId: "listEmailRecipients",
  summary: "List email recipients",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: ChannelIdParamsSchema },
  responses: { 200: jsonResponse(z.array(EmailRecipientSchema), "Recipients") },
  errors: [400, 404],
});
