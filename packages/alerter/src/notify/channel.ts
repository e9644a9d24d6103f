import { decryptSecret, type SecretKey, type Sql } from "@dbmon/datastore";

export type ChannelType = "slack" | "mattermost" | "webhook" | "email";

/** A channel with its secrets decrypted, ready to send through. Never leaves the process. */
export interface Channel {
  id: number;
  channelType: ChannelType;
  name: string;
  webhookUrl: string | null;
  endpointUrl: string | null;
  httpMethod: string;
  headers: Record<string, string>;
  authType: string | null;
  authCredentials: string | null;
  smtpHost: string | null;
  smtpPort: number;
  smtpUsername: string | null;
  smtpPassword: string | null;
  smtpUseTls: boolean;
  fromAddress: string | null;
  fromName: string | null;
  templates: { fire: string | null; clear: string | null; reminder: string | null };
  reminderEnabled: boolean;
  reminderIntervalHours: number;
  /** Enabled recipients (email channels). */
  recipients: string[];
}

interface ChannelRow {
  id: number;
  channel_type: ChannelType;
  name: string;
  webhook_url_encrypted: string | null;
  endpoint_url: string | null;
  http_method: string;
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
}

const reveal = (key: SecretKey, stored: string | null): string | null =>
  stored === null ? null : decryptSecret(key, stored);

/** Loads channels (all, or these ids) with decrypted secrets and enabled recipients. */
export async function loadChannels(sql: Sql, key: SecretKey, ids?: number[]): Promise<Channel[]> {
  if (ids && ids.length === 0) {
    return [];
  }
  const rows = await sql<ChannelRow[]>`
    select * from notification_channels ${ids ? sql`where id in ${sql(ids)}` : sql``} order by id`;
  const recipients = await sql<{ channel_id: number; email_address: string }[]>`
    select channel_id, email_address from email_recipients
    where enabled ${ids ? sql`and channel_id in ${sql(ids)}` : sql``} order by id`;
  return rows.map((row) => ({
    id: row.id,
    channelType: row.channel_type,
    name: row.name,
    webhookUrl: reveal(key, row.webhook_url_encrypted),
    endpointUrl: row.endpoint_url,
    httpMethod: row.http_method,
    headers: row.headers_encrypted
      ? (JSON.parse(decryptSecret(key, row.headers_encrypted)) as Record<string, string>)
      : {},
    authType: row.auth_type,
    authCredentials: reveal(key, row.auth_credentials_encrypted),
    smtpHost: row.smtp_host,
    smtpPort: row.smtp_port,
    smtpUsername: row.smtp_username,
    smtpPassword: reveal(key, row.smtp_password_encrypted),
    smtpUseTls: row.smtp_use_tls,
    fromAddress: row.from_address,
    fromName: row.from_name,
    templates: {
      fire: row.template_alert_fire,
      clear: row.template_alert_clear,
      reminder: row.template_reminder,
    },
    reminderEnabled: row.reminder_enabled,
    reminderIntervalHours: row.reminder_interval_hours,
    recipients: recipients.filter((r) => r.channel_id === row.id).map((r) => r.email_address),
  }));
}
