import { listNotificationChannels } from "@dbmon/contract";
import { presentChannel } from "../../alerting/channels.js";
import { implement } from "../../http/operations.js";

export const listNotificationChannelsHandler = implement(listNotificationChannels, async (c) =>
  c.json((await c.get("services").notificationChannels.list()).map(presentChannel), 200),
);
