import { createEmailRecipient } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createEmailRecipientHandler = implement(createEmailRecipient, async (c) =>
  c.json(
    await c.get("services").notificationChannels.addRecipient(c.req.valid("param").id, c.req.valid("json")),
    201,
  ),
);
