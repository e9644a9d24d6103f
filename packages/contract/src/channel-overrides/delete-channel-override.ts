import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { manageNotificationChannelsRefusal } from "../notifications/schemas.js";
import { defineOperation } from "../operation.js";
import { ChannelOverrideParamsSchema } from "./schemas.js";

export const deleteChannelOverride = defineOperation({
  method: "delete",
  path: "/api/v1/channel-overrides/{scope}/{scopeId}/{channelId}",
  operationId: "deleteChannelOverride",
  summary: "Delete a channel override",
  tag: "notifications",
  access: {
    permission: "manage_notification_channels",
    message: manageNotificationChannelsRefusal,
    note: "A scope without a connection the caller can see is not found.",
  },
  request: { params: ChannelOverrideParamsSchema },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted") },
  errors: [400, 404],
});
