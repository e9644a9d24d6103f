import { createEmailRecipient } from "@dbmon/contract";
import {
  manageChannelsRefusal,
  presentRecipient,
  type RecipientRow,
  requireChannel,
} from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerCreateEmailRecipient(app: App): void {
  app.openapi(
    guarded(createEmailRecipient, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const sql = c.get("services").datastore.sql;
      await requireChannel(sql, id);
      const [row] = await sql<RecipientRow[]>`
        insert into email_recipients (channel_id, email_address, display_name, enabled)
        values (${id}, ${body.email_address}, ${body.display_name || null}, ${body.enabled ?? true})
        returning *`;
      return c.json(presentRecipient(row as RecipientRow), 201);
    },
  );
}
