import { listEmailRecipients } from "@dbmon/contract";
import { presentRecipient } from "../../alerting/channels.js";
import { implement } from "../../http/operations.js";

export const listEmailRecipientsHandler = implement(listEmailRecipients, async (c) =>
  c.json(
    (await c.get("services").notificationChannels.recipients(c.req.valid("param").id)).map(presentRecipient),
    200,
  ),
);
