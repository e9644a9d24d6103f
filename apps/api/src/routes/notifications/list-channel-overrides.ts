import { listChannelOverrides } from "@dbmon/contract";
import { manageChannelsRefusal } from "../../alerting/channels.js";
import { scopeVisible } from "../../alerting/scopes.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

export function registerListChannelOverrides(app: App): void {
  app.openapi(
    guarded(listChannelOverrides, {
      permission: "manage_notification_channels",
      message: manageChannelsRefusal,
    }),
    async (c) => {
      const { scope, scopeId } = c.req.valid("param");
      const sql = c.get("services").datastore.sql;
      if (!(await scopeVisible(c.get("access"), sql, scope, scopeId))) {
        throw new ApiError(404, "Channel override scope not found");
      }
      const rows = await sql<
        {
          channel_id: number;
          channel_name: string;
          channel_type: string;
          description: string | null;
          is_estate_default: boolean;
          has_override: boolean;
          override_enabled: boolean | null;
        }[]
      >`
        select ch.id as channel_id, ch.name as channel_name, ch.channel_type, ch.description, ch.is_estate_default,
          o.id is not null as has_override, o.enabled as override_enabled
        from notification_channels ch
        left join notification_channel_overrides o on o.channel_id = ch.id and o.scope = ${scope} and o.scope_id = ${scopeId}
        where ch.enabled order by ch.name, ch.id`;
      return c.json(rows, 200);
    },
  );
}
