import { listEmailRecipients } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listEmailRecipientsHandler = implement(listEmailRecipients, async (c) =>
  c.json(await c.get("services").notificationChannels.recipients(c.req.valid("param").id), 200),
);
