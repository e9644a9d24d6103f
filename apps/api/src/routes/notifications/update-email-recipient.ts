import { updateEmailRecipient } from "@dbmon/contract";
import { manageChannelsRefusal, presentRecipient, type RecipientRow } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerUpdateEmailRecipient(app: App): void {
  app.openapi(
    guarded(updateEmailRecipient, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id, recipientId } = c.req.valid("param");
      const body = c.req.valid("json");
      const [row] = await c.get("services").datastore.sql<RecipientRow[]>`
        update email_recipients set email_address = ${body.email_address}, display_name = ${body.display_name || null},
          enabled = ${body.enabled ?? true}
        where id = ${recipientId} and channel_id = ${id} returning *`;
      if (!row) {
        throw new ApiError(404, "Email recipient not found");
      }
      return c.json(presentRecipient(row), 200);
    },
  );
}
