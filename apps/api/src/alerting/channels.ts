import type { NotificationChannelRequestSchema } from "@dbmon/contract";
import { encryptSecret, type SecretKey, type Sql } from "@dbmon/datastore";
import type { z } from "zod";
import { ApiError } from "../http/errors.js";
import { iso } from "./time.js";

export type ChannelRequest = z.infer<typeof NotificationChannelRequestSchema>;

export const manageChannelsRefusal =
  "Permission denied: you do not have permission to manage notification channels";

const channelTypes = ["email", "slack", "mattermost", "webhook"];

interface StoredChannel {
  id: number;
  owner_username: string | null;
  owner_token: string | null;
  enabled: boolean;
  channel_type: string;
  name: string;
  description: string | null;
  webhook_url_encrypted: string | null;
  endpoint_url: string | null;
  http_method: string;
  header_names: string[];
  headers_encrypted: string | null;
  auth_type: string | null;
  auth_credentials_encrypted: string | null;
  smtp_host: string | null;
  smtp_port: number;
  smtp_username: string | null;
  smtp_password_encrypted: string | null;
  smtp_use_tls: boolean;
  from_address: string | null;
  from_name: string | null;
  template_alert_fire: string | null;
  template_alert_clear: string | null;
  template_reminder: string | null;
  reminder_enabled: boolean;
  reminder_interval_hours: number;
  is_estate_default: boolean;
  created_at: string;
  updated_at: string;
}

export interface RecipientRow {
  id: number;
  channel_id: number;
  email_address: string;
  display_name: string | null;
  enabled: boolean;
  created_at: string;
}

export function presentRecipient(row: RecipientRow) {
  return {
    id: row.id,
    channel_id: row.channel_id,
    email_address: row.email_address,
    display_name: row.display_name,
    enabled: row.enabled,
    created_at: iso(row.created_at),
  };
}

/** A channel as the API shows it: secrets only as "is set" flags. */
export async function loadChannelView(sql: Sql, id?: number) {
  const rows = await sql<StoredChannel[]>`
    select * from notification_channels ${id === undefined ? sql`` : sql`where id = ${id}`} order by name, id`;
  const recipients = await sql<RecipientRow[]>`
    select * from email_recipients ${id === undefined ? sql`` : sql`where channel_id = ${id}`} order by id`;
  return rows.map((row) => ({
    id: row.id,
    owner_username: row.owner_username,
    owner_token: row.owner_token,
    enabled: row.enabled,
    channel_type: row.channel_type as "email" | "slack" | "mattermost" | "webhook",
    name: row.name,
    description: row.description,
    webhook_url_set: row.webhook_url_encrypted !== null,
    endpoint_url: row.endpoint_url,
    http_method: row.http_method,
    header_names: [...row.header_names].sort(),
    auth_type: row.auth_type,
    auth_credentials_set: row.auth_credentials_encrypted !== null,
    smtp_host: row.smtp_host,
    smtp_port: row.smtp_port,
    smtp_username_set: row.smtp_username !== null,
    smtp_password_set: row.smtp_password_encrypted !== null,
    smtp_use_tls: row.smtp_use_tls,
    from_address: row.from_address,
    from_name: row.from_name,
    template_alert_fire: row.template_alert_fire,
    template_alert_clear: row.template_alert_clear,
    template_reminder: row.template_reminder,
    reminder_enabled: row.reminder_enabled,
    reminder_interval_hours: row.reminder_interval_hours,
    is_estate_default: row.is_estate_default,
    recipients:
      row.channel_type === "email"
        ? recipients.filter((r) => r.channel_id === row.id).map(presentRecipient)
        : [],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}

/** Secret columns: undefined keeps the stored value, "" clears it, anything else replaces it. */
function secret(key: SecretKey, value: string | undefined, stored: string | null): string | null {
  if (value === undefined) {
    return stored;
  }
  return value === "" ? null : encryptSecret(key, value);
}

const emptyToNull = (value: string | null | undefined, stored: string | null): string | null =>
  value === undefined ? stored : value === null || value.trim() === "" ? null : value;

/**
 * The columns of a channel after applying a request to what is stored (nothing for a new channel),
 * checked as a whole: type, name, email requirements.
 */
export async function mergedChannel(sql: Sql, key: SecretKey, body: ChannelRequest, id?: number) {
  let stored: StoredChannel | undefined;
  if (id !== undefined) {
    [stored] = await sql<StoredChannel[]>`select * from notification_channels where id = ${id}`;
    if (!stored) {
      throw new ApiError(404, "Notification channel not found");
    }
  }
  const channelType = body.channel_type ?? stored?.channel_type;
  if (!channelType || !channelTypes.includes(channelType)) {
    throw new ApiError(400, "Invalid channel_type: must be one of email, slack, mattermost, webhook");
  }
  const name = body.name !== undefined ? body.name.trim() : stored?.name;
  if (!name) {
    throw new ApiError(400, "Name is required");
  }
  const headers = body.headers;
  for (const headerName of Object.keys(headers ?? {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(headerName)) {
      throw new ApiError(400, `Invalid header name: ${headerName}`);
    }
  }
  const authType = body.auth_type === undefined ? (stored?.auth_type ?? null) : body.auth_type || null;
  const columns = {
    channel_type: channelType,
    name,
    description: body.description === undefined ? (stored?.description ?? null) : body.description,
    enabled: body.enabled ?? stored?.enabled ?? true,
    is_estate_default: body.is_estate_default ?? stored?.is_estate_default ?? false,
    webhook_url_encrypted: secret(key, body.webhook_url, stored?.webhook_url_encrypted ?? null),
    endpoint_url: emptyToNull(body.endpoint_url, stored?.endpoint_url ?? null),
    http_method: body.http_method ?? stored?.http_method ?? "POST",
    header_names: headers ? Object.keys(headers).sort() : (stored?.header_names ?? []),
    headers_encrypted: headers
      ? Object.keys(headers).length > 0
        ? encryptSecret(key, JSON.stringify(headers))
        : null
      : (stored?.headers_encrypted ?? null),
    auth_type: authType === "none" ? null : authType,
    auth_credentials_encrypted: secret(
      key,
      body.auth_credentials,
      stored?.auth_credentials_encrypted ?? null,
    ),
    smtp_host: emptyToNull(body.smtp_host, stored?.smtp_host ?? null),
    smtp_port: body.smtp_port ?? stored?.smtp_port ?? 587,
    smtp_username:
      body.smtp_username === undefined
        ? (stored?.smtp_username ?? null)
        : body.smtp_username === ""
          ? null
          : body.smtp_username,
    smtp_password_encrypted: secret(key, body.smtp_password, stored?.smtp_password_encrypted ?? null),
    smtp_use_tls: body.smtp_use_tls ?? stored?.smtp_use_tls ?? true,
    from_address: emptyToNull(body.from_address, stored?.from_address ?? null),
    from_name: emptyToNull(body.from_name, stored?.from_name ?? null),
    template_alert_fire: emptyToNull(body.template_alert_fire, stored?.template_alert_fire ?? null),
    template_alert_clear: emptyToNull(body.template_alert_clear, stored?.template_alert_clear ?? null),
    template_reminder: emptyToNull(body.template_reminder, stored?.template_reminder ?? null),
    reminder_enabled: body.reminder_enabled ?? stored?.reminder_enabled ?? false,
    reminder_interval_hours: body.reminder_interval_hours ?? stored?.reminder_interval_hours ?? 4,
  };
  if (channelType === "email" && !columns.smtp_host) {
    throw new ApiError(400, "smtp_host is required for email channels");
  }
  if (channelType === "email" && !columns.from_address) {
    throw new ApiError(400, "from_address is required for email channels");
  }
  if (channelType === "webhook" && columns.endpoint_url) {
    try {
      const url = new URL(columns.endpoint_url);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new Error("scheme");
      }
    } catch {
      throw new ApiError(400, "endpoint_url must be an http or https URL");
    }
  }
  return columns;
}

export async function requireChannel(sql: Sql, id: number): Promise<{ channel_type: string }> {
  const [row] = await sql<
    { channel_type: string }[]
  >`select channel_type from notification_channels where id = ${id}`;
  if (!row) {
    throw new ApiError(404, "Notification channel not found");
  }
  return row;
}
