import { createEmailRecipientHandler } from "./create-email-recipient.js";
import { createNotificationChannelHandler } from "./create-notification-channel.js";
import { deleteEmailRecipientHandler } from "./delete-email-recipient.js";
import { deleteNotificationChannelHandler } from "./delete-notification-channel.js";
import { getNotificationChannelHandler } from "./get-notification-channel.js";
import { listEmailRecipientsHandler } from "./list-email-recipients.js";
import { listNotificationChannelsHandler } from "./list-notification-channels.js";
import { testNotificationChannelHandler } from "./test-notification-channel.js";
import { updateEmailRecipientHandler } from "./update-email-recipient.js";
import { updateNotificationChannelHandler } from "./update-notification-channel.js";

export const notificationsHandlers = [
  listNotificationChannelsHandler,
  createNotificationChannelHandler,
  getNotificationChannelHandler,
  updateNotificationChannelHandler,
  deleteNotificationChannelHandler,
  testNotificationChannelHandler,
  listEmailRecipientsHandler,
  createEmailRecipientHandler,
  updateEmailRecipientHandler,
  deleteEmailRecipientHandler,
];
