import { upsertChannelOverride } from "@dbmon/contract";
import { manageChannelsRefusal, requireChannel } from "../../alerting/channels.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerUpsertChannelOverride(app: App): void {
  app.openapi(
    guarded(upsertChannelOverride, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { scope, scopeId, channelId } = c.req.valid("param");
      const { enabled } = c.req.valid("json");
      const sql = c.get("services").datastore.sql;
      await requireChannel(sql, channelId);
      await sql`
        insert into notification_channel_overrides (channel_id, scope, scope_id, enabled)
        values (${channelId}, ${scope}, ${scopeId}, ${enabled})
        on conflict (channel_id, scope, scope_id) do update set enabled = excluded.enabled, updated_at = now()`;
      return c.json({ status: "ok" }, 200);
    },
  );
}
