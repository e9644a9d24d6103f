import { updateEmailRecipient } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateEmailRecipientHandler = implement(updateEmailRecipient, async (c) => {
  const { id, recipientId } = c.req.valid("param");
  return c.json(
    await c.get("services").notificationChannels.updateRecipient(id, recipientId, c.req.valid("json")),
    200,
  );
});
