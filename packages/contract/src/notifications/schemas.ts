import { z } from "@hono/zod-openapi";
import { idParam, message, TimestampSchema } from "../common.js";

export const channelTypes = ["email", "slack", "mattermost", "webhook"] as const;

/** The 403 text of every channel operation, the reference's. */
export const manageNotificationChannelsRefusal =
  "Permission denied: you do not have permission to manage notification channels";

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

export const TestChannelRequestSchema = z
  .object({ recipient_email: z.string(failed).optional() })
  .openapi("TestChannelRequest");

const recipientInvalid = message("A valid email_address is required (must contain @)");
export const EmailRecipientRequestSchema = z
  .object({
    email_address: z.string(recipientInvalid).trim().includes("@", recipientInvalid),
    display_name: z.string(failed).nullable().optional(),
    enabled: z.boolean(failed).optional(),
  })
  .openapi("EmailRecipientRequest");

export const ChannelIdParamsSchema = z.object({ id: idParam("Invalid notification channel ID") });
export const RecipientParamsSchema = ChannelIdParamsSchema.extend({
  recipientId: idParam("Invalid recipient ID"),
});
