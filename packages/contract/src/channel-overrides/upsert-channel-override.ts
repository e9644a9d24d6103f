import { StatusResponseSchema } from "../alerts/schemas.js";
import { jsonResponse } from "../common.js";
import { manageNotificationChannelsRefusal } from "../notifications/schemas.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ChannelOverrideParamsSchema, ChannelOverrideUpdateSchema } from "./schemas.js";

export const upsertChannelOverride = defineOperation({
  method: "put",
  path: "/api/v1/channel-overrides/{scope}/{scopeId}/{channelId}",
  operationId: "upsertChannelOverride",
  summary: "Create or update a channel override",
  tag: "notifications",
  access: {
    permission: "manage_notification_channels",
    message: manageNotificationChannelsRefusal,
    note: "A scope without a connection the caller can see is not found.",
  },
  request: { params: ChannelOverrideParamsSchema, body: jsonBody(ChannelOverrideUpdateSchema) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Saved") },
  errors: [400, 404],
});
