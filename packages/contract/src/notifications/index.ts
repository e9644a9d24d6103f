import { createEmailRecipient } from "./create-email-recipient.js";
import { createNotificationChannel } from "./create-notification-channel.js";
import { deleteEmailRecipient } from "./delete-email-recipient.js";
import { deleteNotificationChannel } from "./delete-notification-channel.js";
import { getNotificationChannel } from "./get-notification-channel.js";
import { listEmailRecipients } from "./list-email-recipients.js";
import { listNotificationChannels } from "./list-notification-channels.js";
import { testNotificationChannel } from "./test-notification-channel.js";
import { updateEmailRecipient } from "./update-email-recipient.js";
import { updateNotificationChannel } from "./update-notification-channel.js";

export * from "./create-email-recipient.js";
export * from "./create-notification-channel.js";
export * from "./delete-email-recipient.js";
export * from "./delete-notification-channel.js";
export * from "./get-notification-channel.js";
export * from "./list-email-recipients.js";
export * from "./list-notification-channels.js";
export * from "./schemas.js";
export * from "./test-notification-channel.js";
export * from "./update-email-recipient.js";
export * from "./update-notification-channel.js";

export const notificationsOperations = [
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
] as const;
