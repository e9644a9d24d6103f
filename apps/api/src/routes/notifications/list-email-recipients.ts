import { listEmailRecipients } from "@dbmon/contract";
import {
  manageChannelsRefusal,
  presentRecipient,
  type RecipientRow,
  requireChannel,
} from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerListEmailRecipients(app: App): void {
  app.openapi(
    guarded(listEmailRecipients, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { id } = c.req.valid("param");
      const sql = c.get("services").datastore.sql;
      await requireChannel(sql, id);
      const rows = await sql<
        RecipientRow[]
      >`select * from email_recipients where channel_id = ${id} order by id`;
      return c.json(rows.map(presentRecipient), 200);
    },
  );
}
