import { deleteEmailRecipient } from "@dbmon/contract";
import { manageChannelsRefusal } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerDeleteEmailRecipient(app: App): void {
  app.openapi(
    guarded(deleteEmailRecipient, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id, recipientId } = c.req.valid("param");
      const deleted = await c.get("services").datastore.sql`
        delete from email_recipients where id = ${recipientId} and channel_id = ${id} returning id`;
      if (deleted.length === 0) {
        throw new ApiError(404, "Email recipient not found");
      }
      return c.json({ status: "deleted" }, 200);
    },
  );
}
