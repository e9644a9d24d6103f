import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { manageNotificationChannelsRefusal } from "../notifications/schemas.js";
import { defineOperation } from "../operation.js";
import { ChannelOverrideSchema, ChannelScopeParamsSchema } from "./schemas.js";

export const listChannelOverrides = defineOperation({
  method: "get",
  path: "/api/v1/channel-overrides/{scope}/{scopeId}",
  operationId: "listChannelOverrides",
  summary: "List channel overrides for a scope",
  description: "Every enabled channel with the scope's override, if any.",
  tag: "notifications",
  access: {
    permission: "manage_notification_channels",
    message: manageNotificationChannelsRefusal,
    note: "A scope without a connection the caller can see is not found.",
  },
  request: { params: ChannelScopeParamsSchema },
  responses: { 200: jsonResponse(z.array(ChannelOverrideSchema), "Channels and overrides") },
  errors: [400, 404],
});
