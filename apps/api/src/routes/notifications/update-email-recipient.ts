import { updateEmailRecipient } from "@dbmon/contract";
import { presentRecipient } from "../../alerting/channels.js";
import { camelCased } from "../../http/camel-case.js";
import { implement } from "../../http/operations.js";

export const updateEmailRecipientHandler = implement(updateEmailRecipient, async (c) => {
  const { id, recipientId } = c.req.valid("param");
  return c.json(
    presentRecipient(
      await c
        .get("services")
        .notificationChannels.updateRecipient(id, recipientId, camelCased(c.req.valid("json"))),
    ),
    200,
  );
});
