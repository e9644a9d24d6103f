import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { manageNotificationChannelsRefusal, RecipientParamsSchema } from "./schemas.js";

export const deleteEmailRecipient = defineOperation({
  method: "delete",
  path: "/api/v1/notification-channels/{id}/recipients/{recipientId}",
  operationId: "deleteEmailRecipient",
  summary: "Delete a recipient",
  tag: "notifications",
  access: { permission: "manage_notification_channels", message: manageNotificationChannelsRefusal },
  request: { params: RecipientParamsSchema },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted") },
  errors: [400, 404],
});
