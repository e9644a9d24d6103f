import { updateProbeConfig } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { PROBE_CONFIG_COLUMNS, type ProbeConfigRow } from "../../probes/configs.js";

export const MANAGE_PROBES_DENIED = "Permission denied: you do not have permission to manage probes";

export function registerUpdateProbeConfig(app: App): void {
  app.openapi(
    guarded(updateProbeConfig, { permission: "manage_probes", message: MANAGE_PROBES_DENIED }),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const [row] = await c.get("services").datastore.sql.unsafe<ProbeConfigRow[]>(
        `update probe_configs p set
           is_enabled = coalesce($2, p.is_enabled),
           collection_interval_seconds = coalesce($3, p.collection_interval_seconds),
           retention_days = coalesce($4, p.retention_days),
           user_modified = true,
           updated_at = now()
         where p.id = $1
         returning ${PROBE_CONFIG_COLUMNS}`,
        [id, body.is_enabled ?? null, body.collection_interval_seconds ?? null, body.retention_days ?? null],
      );
      if (!row) {
        throw new ApiError(404, "Probe config not found");
      }
      return c.json(row, 200);
    },
  );
}
