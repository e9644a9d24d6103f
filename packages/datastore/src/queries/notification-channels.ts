import { asc, inArray } from "drizzle-orm";
import type { Sql } from "../datastore.js";
import { emailRecipients, notificationChannels } from "../schema/alerting.js";
import { drizzleOf } from "./drizzle.js";

export type NotificationChannelRow = typeof notificationChannels.$inferSelect;
export type EmailRecipientRow = typeof emailRecipients.$inferSelect;

/** A channel as stored (secrets still encrypted) with its email recipients, enabled or not. */
export interface StoredNotificationChannel extends NotificationChannelRow {
  recipients: EmailRecipientRow[];
}

/**
 * Channels (every one, or these ids) by name, each with its recipients by id: what the API shows
 * and what the alerter sends through. Two queries whatever the number of channels.
 */
export async function readNotificationChannels(
  sql: Sql,
  ids?: readonly number[],
): Promise<StoredNotificationChannel[]> {
  if (ids && ids.length === 0) {
    return [];
  }
  const db = drizzleOf(sql);
  const [channels, recipients] = await Promise.all([
    db
      .select()
      .from(notificationChannels)
      .where(ids ? inArray(notificationChannels.id, [...ids]) : undefined)
      .orderBy(asc(notificationChannels.name), asc(notificationChannels.id)),
    db
      .select()
      .from(emailRecipients)
      .where(ids ? inArray(emailRecipients.channelId, [...ids]) : undefined)
      .orderBy(asc(emailRecipients.id)),
  ]);
  return channels.map((channel) => ({
    ...channel,
    recipients: recipients.filter((recipient) => recipient.channelId === channel.id),
  }));
}
