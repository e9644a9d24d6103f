import { deleteEmailRecipient } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteEmailRecipientHandler = implement(deleteEmailRecipient, async (c) => {
  const { id, recipientId } = c.req.valid("param");
  await c.get("services").notificationChannels.removeRecipient(id, recipientId);
  return c.json({ status: "deleted" }, 200);
});
