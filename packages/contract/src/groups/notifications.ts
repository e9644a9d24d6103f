import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, idParam, jsonResponse, message, TimestampSchema } from "../common.js";
import { tags } from "../tags.js";
import { StatusResponseSchema } from "./alerts.js";

const tag = [tags.notifications.name];

export const channelTypes = ["email", "slack", "mattermost", "webhook"] as const;

export const EmailRecipientSchema = z
  .object({
    id: z.number().int(),
    channel_id: z.number().int(),
    email_address: z.string(),
    display_name: z.string().nullable(),
    enabled: z.boolean(),
    created_at: TimestampSchema,
  })
  .openapi("EmailRecipient");

export const NotificationChannelSchema = z
  .object({
    id: z.number().int(),
    owner_username: z.string().nullable(),
    owner_token: z.string().nullable(),
    enabled: z.boolean(),
    channel_type: z.enum(channelTypes),
    name: z.string(),
    description: z.string().nullable(),
    webhook_url_set: z.boolean(),
    endpoint_url: z.string().nullable(),
    http_method: z.string(),
    header_names: z
      .array(z.string())
      .openapi({ description: "Names of the custom headers (values are secret)" }),
    auth_type: z.string().nullable(),
    auth_credentials_set: z.boolean(),
    smtp_host: z.string().nullable(),
    smtp_port: z.number().int(),
    smtp_username_set: z.boolean(),
    smtp_password_set: z.boolean(),
    smtp_use_tls: z.boolean(),
    from_address: z.string().nullable(),
    from_name: z.string().nullable(),
    template_alert_fire: z.string().nullable(),
    template_alert_clear: z.string().nullable(),
    template_reminder: z.string().nullable(),
    reminder_enabled: z.boolean(),
    reminder_interval_hours: z.number().int(),
    is_estate_default: z.boolean(),
    recipients: z.array(EmailRecipientSchema).openapi({ description: "Email channels only; [] otherwise" }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("NotificationChannel");

const failed = message("Request failed");

export const NotificationChannelRequestSchema = z
  .object({
    channel_type: z.string().optional().openapi({ description: "email, slack, mattermost or webhook" }),
    name: z.string().optional(),
    description: z.string().nullable().optional(),
    enabled: z.boolean(failed).optional(),
    is_estate_default: z.boolean(failed).optional(),
    webhook_url: z
      .string(failed)
      .optional()
      .openapi({ description: "Slack or Mattermost incoming webhook; secret" }),
    endpoint_url: z.string(failed).nullable().optional(),
    http_method: z
      .enum(["GET", "POST", "PUT", "PATCH"], message("http_method must be one of GET, POST, PUT, PATCH"))
      .optional(),
    headers: z
      .record(z.string(), z.string(failed), failed)
      .optional()
      .openapi({ description: "Values are secret" }),
    auth_type: z
      .enum(
        ["", "none", "basic", "bearer", "api_key"],
        message("auth_type must be one of basic, bearer, api_key"),
      )
      .nullable()
      .optional(),
    auth_credentials: z.string(failed).optional().openapi({
      description: 'basic: "user:password", bearer: the token, api_key: "Header-Name:value"; secret',
    }),
    smtp_host: z.string(failed).nullable().optional(),
    smtp_port: z.number(failed).int(failed).min(1, failed).max(65_535, failed).optional(),
    smtp_username: z.string(failed).optional(),
    smtp_password: z.string(failed).optional(),
    smtp_use_tls: z.boolean(failed).optional(),
    from_address: z.string(failed).nullable().optional(),
    from_name: z.string(failed).nullable().optional(),
    template_alert_fire: z.string(failed).nullable().optional(),
    template_alert_clear: z.string(failed).nullable().optional(),
    template_reminder: z.string(failed).nullable().optional(),
    reminder_enabled: z.boolean(failed).optional(),
    reminder_interval_hours: z.number(failed).int(failed).min(1, failed).max(8760, failed).optional(),
  })
  .openapi("NotificationChannelCreateRequest");

const ChannelIdParams = z.object({ id: idParam("Invalid notification channel ID") });
const RecipientParams = ChannelIdParams.extend({ recipientId: idParam("Invalid recipient ID") });
const channelBody = {
  required: true,
  content: { "application/json": { schema: NotificationChannelRequestSchema } },
} as const;

export const listNotificationChannels = createRoute({
  method: "get",
  path: "/api/v1/notification-channels",
  operationId: "listNotificationChannels",
  summary: "List channels",
  description: "Ordered by name; secrets are never returned. Requires manage_notification_channels.",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.array(NotificationChannelSchema), "Channels"),
    ...errorResponses(401, 403),
  },
});

export const createNotificationChannel = createRoute({
  method: "post",
  path: "/api/v1/notification-channels",
  operationId: "createNotificationChannel",
  summary: "Create a channel",
  description: "Requires manage_notification_channels. Secrets are stored encrypted.",
  tags: tag,
  security: authenticated,
  request: { body: channelBody },
  responses: { 201: jsonResponse(NotificationChannelSchema, "Created"), ...errorResponses(400, 401, 403) },
});

export const getNotificationChannel = createRoute({
  method: "get",
  path: "/api/v1/notification-channels/{id}",
  operationId: "getNotificationChannel",
  summary: "Get a channel",
  tags: tag,
  security: authenticated,
  request: { params: ChannelIdParams },
  responses: {
    200: jsonResponse(NotificationChannelSchema, "Channel"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const updateNotificationChannel = createRoute({
  method: "put",
  path: "/api/v1/notification-channels/{id}",
  operationId: "updateNotificationChannel",
  summary: "Update a channel",
  description: 'Merge: omitted fields are kept, secrets included; a secret set to "" is cleared.',
  tags: tag,
  security: authenticated,
  request: { params: ChannelIdParams, body: channelBody },
  responses: {
    200: jsonResponse(NotificationChannelSchema, "Updated"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const deleteNotificationChannel = createRoute({
  method: "delete",
  path: "/api/v1/notification-channels/{id}",
  operationId: "deleteNotificationChannel",
  summary: "Delete a channel",
  tags: tag,
  security: authenticated,
  request: { params: ChannelIdParams },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted"), ...errorResponses(400, 401, 403, 404) },
});

export const testNotificationChannel = createRoute({
  method: "post",
  path: "/api/v1/notification-channels/{id}/test",
  operationId: "testNotificationChannel",
  summary: "Send a test notification",
  description: "Sends a test message through the channel now; 502 when the receiver refuses it.",
  tags: tag,
  security: authenticated,
  request: {
    params: ChannelIdParams,
    body: {
      required: false,
      content: {
        "application/json": {
          schema: z.object({ recipient_email: z.string(failed).optional() }).openapi("TestChannelRequest"),
        },
      },
    },
  },
  responses: { 200: jsonResponse(StatusResponseSchema, "Sent"), ...errorResponses(400, 401, 403, 404, 502) },
});

const recipientInvalid = message("A valid email_address is required (must contain @)");
const RecipientRequestSchema = z
  .object({
    email_address: z.string(recipientInvalid).trim().includes("@", recipientInvalid),
    display_name: z.string(failed).nullable().optional(),
    enabled: z.boolean(failed).optional(),
  })
  .openapi("EmailRecipientRequest");

export const listEmailRecipients = createRoute({
  method: "get",
  path: "/api/v1/notification-channels/{id}/recipients",
  operationId: "listEmailRecipients",
  summary: "List email recipients",
  tags: tag,
  security: authenticated,
  request: { params: ChannelIdParams },
  responses: {
    200: jsonResponse(z.array(EmailRecipientSchema), "Recipients"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const createEmailRecipient = createRoute({
  method: "post",
  path: "/api/v1/notification-channels/{id}/recipients",
  operationId: "createEmailRecipient",
  summary: "Add an email recipient",
  tags: tag,
  security: authenticated,
  request: {
    params: ChannelIdParams,
    body: { required: true, content: { "application/json": { schema: RecipientRequestSchema } } },
  },
  responses: { 201: jsonResponse(EmailRecipientSchema, "Added"), ...errorResponses(400, 401, 403, 404) },
});

export const updateEmailRecipient = createRoute({
  method: "put",
  path: "/api/v1/notification-channels/{id}/recipients/{recipientId}",
  operationId: "updateEmailRecipient",
  summary: "Update a recipient",
  tags: tag,
  security: authenticated,
  request: {
    params: RecipientParams,
    body: { required: true, content: { "application/json": { schema: RecipientRequestSchema } } },
  },
  responses: { 200: jsonResponse(EmailRecipientSchema, "Updated"), ...errorResponses(400, 401, 403, 404) },
});

export const deleteEmailRecipient = createRoute({
  method: "delete",
  path: "/api/v1/notification-channels/{id}/recipients/{recipientId}",
  operationId: "deleteEmailRecipient",
  summary: "Delete a recipient",
  tags: tag,
  security: authenticated,
  request: { params: RecipientParams },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted"), ...errorResponses(400, 401, 403, 404) },
});

// ---------------------------------------------------------------- channel overrides

const ChannelScopeParams = z.object({
  scope: z.enum(["server", "cluster", "group"], message("Invalid scope: must be server, cluster, or group")),
  scopeId: idParam("Invalid scope ID"),
});

export const ChannelOverrideSchema = z
  .object({
    channel_id: z.number().int(),
    channel_name: z.string(),
    channel_type: z.string(),
    description: z.string().nullable(),
    is_estate_default: z.boolean(),
    has_override: z.boolean(),
    override_enabled: z.boolean().nullable(),
  })
  .openapi("ChannelOverride");

export const listChannelOverrides = createRoute({
  method: "get",
  path: "/api/v1/channel-overrides/{scope}/{scopeId}",
  operationId: "listChannelOverrides",
  summary: "List channel overrides for a scope",
  description: "Every enabled channel with the scope's override, if any.",
  tags: tag,
  security: authenticated,
  request: { params: ChannelScopeParams },
  responses: {
    200: jsonResponse(z.array(ChannelOverrideSchema), "Channels and overrides"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const upsertChannelOverride = createRoute({
  method: "put",
  path: "/api/v1/channel-overrides/{scope}/{scopeId}/{channelId}",
  operationId: "upsertChannelOverride",
  summary: "Create or update a channel override",
  tags: tag,
  security: authenticated,
  request: {
    params: ChannelScopeParams.extend({ channelId: idParam("Invalid channel ID") }),
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z.object({ enabled: z.boolean(failed) }).openapi("ChannelOverrideUpdate"),
        },
      },
    },
  },
  responses: { 200: jsonResponse(StatusResponseSchema, "Saved"), ...errorResponses(400, 401, 403, 404) },
});

export const deleteChannelOverride = createRoute({
  method: "delete",
  path: "/api/v1/channel-overrides/{scope}/{scopeId}/{channelId}",
  operationId: "deleteChannelOverride",
  summary: "Delete a channel override",
  tags: tag,
  security: authenticated,
  request: { params: ChannelScopeParams.extend({ channelId: idParam("Invalid channel ID") }) },
  responses: { 200: jsonResponse(StatusResponseSchema, "Deleted"), ...errorResponses(400, 401, 403) },
});

export const notificationRoutes = {
  listNotificationChannels,
  createNotificationChannel,
  getNotificationChannel,
  updateNotificationChannel,
  deleteNotificationChannel,
  testNotificationChannel,
  listEmailRecipients,
  createEmailRecipient,
  updateEmailRecipient,
  deleteEmailRecipient,
  listChannelOverrides,
  upsertChannelOverride,
  deleteChannelOverride,
} as const;
