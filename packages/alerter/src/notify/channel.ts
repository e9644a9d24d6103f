import { decryptSecret, readNotificationChannels, type SecretKey, type Sql } from "@dbmon/datastore";

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

const reveal = (key: SecretKey, stored: string | null): string | null =>
  stored === null ? null : decryptSecret(key, stored);

/** Loads channels (all, or these ids) with decrypted secrets and enabled recipients. */
export async function loadChannels(sql: Sql, key: SecretKey, ids?: number[]): Promise<Channel[]> {
  const rows = await readNotificationChannels(sql, ids);
  return rows.map((row) => ({
    id: row.id,
    channelType: row.channelType as ChannelType,
    name: row.name,
    webhookUrl: reveal(key, row.webhookUrlEncrypted),
    endpointUrl: row.endpointUrl,
    httpMethod: row.httpMethod,
    headers: row.headersEncrypted
      ? (JSON.parse(decryptSecret(key, row.headersEncrypted)) as Record<string, string>)
      : {},
    authType: row.authType,
    authCredentials: reveal(key, row.authCredentialsEncrypted),
    smtpHost: row.smtpHost,
    smtpPort: row.smtpPort,
    smtpUsername: row.smtpUsername,
    smtpPassword: reveal(key, row.smtpPasswordEncrypted),
    smtpUseTls: row.smtpUseTls,
    fromAddress: row.fromAddress,
    fromName: row.fromName,
    templates: {
      fire: row.templateAlertFire,
      clear: row.templateAlertClear,
      reminder: row.templateReminder,
    },
    reminderEnabled: row.reminderEnabled,
    reminderIntervalHours: row.reminderIntervalHours,
    recipients: row.recipients.filter((r) => r.enabled).map((r) => r.emailAddress),
  }));
}
