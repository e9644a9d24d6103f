import { listNotificationChannels } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listNotificationChannelsHandler = implement(listNotificationChannels, async (c) =>
  c.json(await c.get("services").notificationChannels.list(), 200),
);
