import { listProbeOverrides } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireVisibleScope } from "../../probes/configs.js";

export function registerListProbeOverrides(app: App): void {
  app.openapi(guarded(listProbeOverrides, {}), async (c) => {
    const { scope, scopeId } = c.req.valid("param");
    const { sql } = c.get("services").datastore;
    await requireVisibleScope(sql, c.get("access"), scope, scopeId);
    const rows = await sql<
      {
        name: string;
        description: string;
        default_enabled: boolean;
        default_interval_seconds: number;
        default_retention_days: number;
        has_override: boolean;
        override_enabled: boolean | null;
        override_interval_seconds: number | null;
        override_retention_days: number | null;
      }[]
    >`
      select g.name, g.description, g.is_enabled as default_enabled,
        g.collection_interval_seconds as default_interval_seconds, g.retention_days as default_retention_days,
        o.id is not null as has_override, o.is_enabled as override_enabled,
        o.collection_interval_seconds as override_interval_seconds, o.retention_days as override_retention_days
      from probe_configs g
      left join probe_configs o on o.name = g.name and o.scope = ${scope} and o.scope_id = ${scopeId}
      where g.scope = 'global'
      order by g.name`;
    return c.json(rows, 200);
  });
}
