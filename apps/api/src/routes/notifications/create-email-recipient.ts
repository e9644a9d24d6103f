import { createEmailRecipient } from "@dbmon/contract";
import { presentRecipient } from "../../alerting/channels.js";
import { camelCased } from "../../http/camel-case.js";
import { implement } from "../../http/operations.js";

export const createEmailRecipientHandler = implement(createEmailRecipient, async (c) =>
  c.json(
    presentRecipient(
      await c
        .get("services")
        .notificationChannels.addRecipient(c.req.valid("param").id, camelCased(c.req.valid("json"))),
    ),
    201,
  ),
);
