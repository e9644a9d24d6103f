import { upsertProbeOverride } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireKnownProbe, requireVisibleScope } from "../../probes/configs.js";
import { MANAGE_PROBES_DENIED } from "./update-probe-config.js";

export function registerUpsertProbeOverride(app: App): void {
  app.openapi(
    guarded(upsertProbeOverride, { permission: "manage_probes", message: MANAGE_PROBES_DENIED }),
    async (c) => {
      const { scope, scopeId, probeName } = c.req.valid("param");
      const body = c.req.valid("json");
      const { sql } = c.get("services").datastore;
      await requireVisibleScope(sql, c.get("access"), scope, scopeId);
      await requireKnownProbe(sql, probeName);
      await sql`
        insert into probe_configs (name, description, collection_interval_seconds, retention_days, is_enabled,
          scope, scope_id, user_modified)
        select name, description, ${body.collection_interval_seconds}, ${body.retention_days}, ${body.is_enabled},
          ${scope}, ${scopeId}, true
        from probe_configs where scope = 'global' and name = ${probeName}
        on conflict (name, scope, scope_id) do update set
          collection_interval_seconds = excluded.collection_interval_seconds,
          retention_days = excluded.retention_days,
          is_enabled = excluded.is_enabled,
          user_modified = true,
          updated_at = now()`;
      return c.json({ status: "ok" as const }, 200);
    },
  );
}
