import { ChannelConfigError, deliver, loadChannels, testMessage } from "@dbmon/alerter";
import type { EmailRecipientRequestSchema, NotificationChannelRequestSchema } from "@dbmon/contract";
import {
  type Datastore,
  type EmailRecipientRow,
  encryptSecret,
  type NotificationChannelRow,
  readNotificationChannels,
  type SecretKey,
  type StoredNotificationChannel,
  schema,
} from "@dbmon/datastore";
import type { HostPolicy } from "@dbmon/monitoring";
import { and, asc, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Clock } from "../clock.js";
import { InvalidInput, NotFound, UpstreamFailed } from "../errors.js";
import type { CamelCased } from "../http/camel-case.js";
import type { Logger } from "../logger.js";
import { iso } from "./time.js";

const { notificationChannels, emailRecipients } = schema;

/** Changes to a channel: omitted fields keep what is stored, "" clears a secret. */
export type ChannelChanges = CamelCased<z.output<typeof NotificationChannelRequestSchema>>;
/** An email recipient's fields. */
export type RecipientInput = CamelCased<z.output<typeof EmailRecipientRequestSchema>>;

const channelTypes = ["email", "slack", "mattermost", "webhook"];

export function presentRecipient(row: EmailRecipientRow) {
  return {
    id: row.id,
    channel_id: row.channelId,
    email_address: row.emailAddress,
    display_name: row.displayName,
    enabled: row.enabled,
    created_at: iso(row.createdAt),
  };
}

/** A channel as the API shows it: secrets only as "is set" flags. */
export function presentChannel(row: StoredNotificationChannel) {
  return {
    id: row.id,
    owner_username: row.ownerUsername,
    owner_token: row.ownerToken,
    enabled: row.enabled,
    channel_type: row.channelType as "email" | "slack" | "mattermost" | "webhook",
    name: row.name,
    description: row.description,
    webhook_url_set: row.webhookUrlEncrypted !== null,
    endpoint_url: row.endpointUrl,
    http_method: row.httpMethod,
    header_names: [...row.headerNames].sort(),
    auth_type: row.authType,
    auth_credentials_set: row.authCredentialsEncrypted !== null,
    smtp_host: row.smtpHost,
    smtp_port: row.smtpPort,
    smtp_username_set: row.smtpUsername !== null,
    smtp_password_set: row.smtpPasswordEncrypted !== null,
    smtp_use_tls: row.smtpUseTls,
    from_address: row.fromAddress,
    from_name: row.fromName,
    template_alert_fire: row.templateAlertFire,
    template_alert_clear: row.templateAlertClear,
    template_reminder: row.templateReminder,
    reminder_enabled: row.reminderEnabled,
    reminder_interval_hours: row.reminderIntervalHours,
    is_estate_default: row.isEstateDefault,
    recipients: row.channelType === "email" ? row.recipients.map(presentRecipient) : [],
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
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
function mergedChannel(key: SecretKey, changes: ChannelChanges, stored?: NotificationChannelRow) {
  const channelType = changes.channelType ?? stored?.channelType;
  if (!channelType || !channelTypes.includes(channelType)) {
    throw new InvalidInput("Invalid channel_type: must be one of email, slack, mattermost, webhook");
  }
  const name = changes.name !== undefined ? changes.name.trim() : stored?.name;
  if (!name) {
    throw new InvalidInput("Name is required");
  }
  const headers = changes.headers;
  for (const headerName of Object.keys(headers ?? {})) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(headerName)) {
      throw new InvalidInput(`Invalid header name: ${headerName}`);
    }
  }
  const authType = changes.authType === undefined ? (stored?.authType ?? null) : changes.authType || null;
  const columns = {
    channelType,
    name,
    description: changes.description === undefined ? (stored?.description ?? null) : changes.description,
    enabled: changes.enabled ?? stored?.enabled ?? true,
    isEstateDefault: changes.isEstateDefault ?? stored?.isEstateDefault ?? false,
    webhookUrlEncrypted: secret(key, changes.webhookUrl, stored?.webhookUrlEncrypted ?? null),
    endpointUrl: emptyToNull(changes.endpointUrl, stored?.endpointUrl ?? null),
    httpMethod: changes.httpMethod ?? stored?.httpMethod ?? "POST",
    headerNames: headers ? Object.keys(headers).sort() : (stored?.headerNames ?? []),
    headersEncrypted: headers
      ? Object.keys(headers).length > 0
        ? encryptSecret(key, JSON.stringify(headers))
        : null
      : (stored?.headersEncrypted ?? null),
    authType: authType === "none" ? null : authType,
    authCredentialsEncrypted: secret(key, changes.authCredentials, stored?.authCredentialsEncrypted ?? null),
    smtpHost: emptyToNull(changes.smtpHost, stored?.smtpHost ?? null),
    smtpPort: changes.smtpPort ?? stored?.smtpPort ?? 587,
    smtpUsername:
      changes.smtpUsername === undefined
        ? (stored?.smtpUsername ?? null)
        : changes.smtpUsername === ""
          ? null
          : changes.smtpUsername,
    smtpPasswordEncrypted: secret(key, changes.smtpPassword, stored?.smtpPasswordEncrypted ?? null),
    smtpUseTls: changes.smtpUseTls ?? stored?.smtpUseTls ?? true,
    fromAddress: emptyToNull(changes.fromAddress, stored?.fromAddress ?? null),
    fromName: emptyToNull(changes.fromName, stored?.fromName ?? null),
    templateAlertFire: emptyToNull(changes.templateAlertFire, stored?.templateAlertFire ?? null),
    templateAlertClear: emptyToNull(changes.templateAlertClear, stored?.templateAlertClear ?? null),
    templateReminder: emptyToNull(changes.templateReminder, stored?.templateReminder ?? null),
    reminderEnabled: changes.reminderEnabled ?? stored?.reminderEnabled ?? false,
    reminderIntervalHours: changes.reminderIntervalHours ?? stored?.reminderIntervalHours ?? 4,
  };
  if (channelType === "email" && !columns.smtpHost) {
    throw new InvalidInput("smtp_host is required for email channels");
  }
  if (channelType === "email" && !columns.fromAddress) {
    throw new InvalidInput("from_address is required for email channels");
  }
  if (channelType === "webhook" && columns.endpointUrl) {
    try {
      const url = new URL(columns.endpointUrl);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        throw new Error("scheme");
      }
    } catch {
      throw new InvalidInput("endpoint_url must be an http or https URL");
    }
  }
  if (stored) {
    requireReenteredSecrets(changes, stored, columns);
  }
  return columns;
}

/**
 * A stored secret never follows a change of destination: whoever may edit a channel but not read
 * its secrets could otherwise send them to a host of their choice. Changing `endpoint_url` needs
 * `headers` and `auth_credentials` again, changing `smtp_host` or `smtp_port` needs `smtp_password`
 * again (each only when one is stored; an empty value clears it). `webhook_url` is itself the secret.
 * Turning `smtp_use_tls` off needs `smtp_password` again too: the password would then travel in
 * clear, to whoever sits between dbmon and the SMTP server.
 */
function requireReenteredSecrets(
  changes: ChannelChanges,
  stored: NotificationChannelRow,
  merged: { endpointUrl: string | null; smtpHost: string | null; smtpPort: number; smtpUseTls: boolean },
): void {
  const missing = (pairs: [string, string | null, unknown][]) =>
    pairs
      .filter(([, storedSecret, given]) => storedSecret !== null && given === undefined)
      .map(([name]) => name);
  const smtpPassword = missing([["smtp_password", stored.smtpPasswordEncrypted, changes.smtpPassword]]);
  const checks: [string, boolean, string[]][] = [
    [
      "Changing endpoint_url",
      merged.endpointUrl !== stored.endpointUrl,
      missing([
        ["auth_credentials", stored.authCredentialsEncrypted, changes.authCredentials],
        ["headers", stored.headersEncrypted, changes.headers],
      ]),
    ],
    [
      "Changing smtp_host or smtp_port",
      merged.smtpHost !== stored.smtpHost || merged.smtpPort !== stored.smtpPort,
      smtpPassword,
    ],
    ["Turning smtp_use_tls off", stored.smtpUseTls && !merged.smtpUseTls, smtpPassword],
  ];
  for (const [change, applies, secrets] of checks) {
    if (applies && secrets.length > 0) {
      throw new InvalidInput(
        `${change} requires re-entering the stored ${secrets.join(" and ")} (send them again, or empty to clear them)`,
      );
    }
  }
}

export interface NotificationChannelDeps {
  datastore: Datastore;
  secretKey: SecretKey;
  /** Which hosts test sends may reach. */
  outboundHosts: HostPolicy;
  clock: Clock;
  logger: Logger;
}

/** Notification channels, their email recipients and test sends. */
export class NotificationChannelService {
  constructor(private readonly deps: NotificationChannelDeps) {}

  private get db() {
    return this.deps.datastore.db;
  }

  /** Every channel, by name. */
  list(): Promise<StoredNotificationChannel[]> {
    return readNotificationChannels(this.deps.datastore.sql);
  }

  async get(id: number): Promise<StoredNotificationChannel> {
    const [channel] = await readNotificationChannels(this.deps.datastore.sql, [id]);
    if (!channel) {
      throw new NotFound("Notification channel not found");
    }
    return channel;
  }

  /** A new channel owned by the caller; secrets are stored encrypted. */
  async create(owner: string, changes: ChannelChanges): Promise<StoredNotificationChannel> {
    const columns = mergedChannel(this.deps.secretKey, changes);
    const [row] = await this.db
      .insert(notificationChannels)
      .values({ ...columns, ownerUsername: owner })
      .returning({ id: notificationChannels.id });
    return this.get(row?.id ?? 0);
  }

  /** Merges the request into the stored channel: omitted fields are kept, "" clears a secret. */
  async update(id: number, changes: ChannelChanges): Promise<StoredNotificationChannel> {
    const [stored] = await this.db.select().from(notificationChannels).where(eq(notificationChannels.id, id));
    if (!stored) {
      throw new NotFound("Notification channel not found");
    }
    const columns = mergedChannel(this.deps.secretKey, changes, stored);
    await this.db
      .update(notificationChannels)
      .set({ ...columns, updatedAt: sql`now()` })
      .where(eq(notificationChannels.id, id));
    return this.get(id);
  }

  async remove(id: number): Promise<void> {
    const deleted = await this.db
      .delete(notificationChannels)
      .where(eq(notificationChannels.id, id))
      .returning({ id: notificationChannels.id });
    if (deleted.length === 0) {
      throw new NotFound("Notification channel not found");
    }
  }

  /** Sends a test message now, to the given address or the channel's enabled recipients. */
  async test(id: number, recipientEmail: string | undefined): Promise<void> {
    const { datastore, secretKey, outboundHosts, clock, logger } = this.deps;
    const [channel] = await loadChannels(datastore.sql, secretKey, [id]);
    if (!channel) {
      throw new NotFound("Notification channel not found");
    }
    const recipients = recipientEmail?.trim() ? [recipientEmail.trim()] : channel.recipients;
    let delivery: Awaited<ReturnType<typeof deliver>>;
    try {
      delivery = await deliver(channel, testMessage(channel, clock.now()), outboundHosts, recipients);
    } catch (error) {
      if (error instanceof ChannelConfigError) {
        throw new InvalidInput(error.message);
      }
      throw error;
    }
    if (!delivery.ok) {
      logger.warn({ channelId: id, error: delivery.error }, "test notification failed");
      throw new UpstreamFailed(
        channel.channelType === "email" ? "Failed to send test email" : "Failed to send test webhook",
      );
    }
  }

  /** The channel's recipients, by id. */
  async recipients(channelId: number): Promise<EmailRecipientRow[]> {
    await this.requireChannel(channelId);
    const rows = await this.db
      .select()
      .from(emailRecipients)
      .where(eq(emailRecipients.channelId, channelId))
      .orderBy(asc(emailRecipients.id));
    return rows;
  }

  async addRecipient(channelId: number, recipient: RecipientInput): Promise<EmailRecipientRow> {
    await this.requireChannel(channelId);
    const [row] = await this.db
      .insert(emailRecipients)
      .values({ channelId, ...recipientColumns(recipient) })
      .returning();
    return row as EmailRecipientRow;
  }

  async updateRecipient(
    channelId: number,
    recipientId: number,
    recipient: RecipientInput,
  ): Promise<EmailRecipientRow> {
    const [row] = await this.db
      .update(emailRecipients)
      .set(recipientColumns(recipient))
      .where(and(eq(emailRecipients.id, recipientId), eq(emailRecipients.channelId, channelId)))
      .returning();
    if (!row) {
      throw new NotFound("Email recipient not found");
    }
    return row;
  }

  async removeRecipient(channelId: number, recipientId: number): Promise<void> {
    const deleted = await this.db
      .delete(emailRecipients)
      .where(and(eq(emailRecipients.id, recipientId), eq(emailRecipients.channelId, channelId)))
      .returning({ id: emailRecipients.id });
    if (deleted.length === 0) {
      throw new NotFound("Email recipient not found");
    }
  }

  /** The channel exists, or NotFound. */
  async requireChannel(id: number): Promise<void> {
    const [row] = await this.db
      .select({ id: notificationChannels.id })
      .from(notificationChannels)
      .where(eq(notificationChannels.id, id));
    if (!row) {
      throw new NotFound("Notification channel not found");
    }
  }
}

function recipientColumns(recipient: RecipientInput) {
  return {
    emailAddress: recipient.emailAddress,
    displayName: recipient.displayName || null,
    enabled: recipient.enabled ?? true,
  };
}
