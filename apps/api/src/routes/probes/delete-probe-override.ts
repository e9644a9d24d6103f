import { deleteProbeOverride } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { requireKnownProbe, requireVisibleScope } from "../../probes/configs.js";
import { MANAGE_PROBES_DENIED } from "./update-probe-config.js";

export function registerDeleteProbeOverride(app: App): void {
  app.openapi(
    guarded(deleteProbeOverride, { permission: "manage_probes", message: MANAGE_PROBES_DENIED }),
    async (c) => {
      const { scope, scopeId, probeName } = c.req.valid("param");
      const { sql } = c.get("services").datastore;
      await requireVisibleScope(sql, c.get("access"), scope, scopeId);
      await requireKnownProbe(sql, probeName);
      await sql`delete from probe_configs where name = ${probeName} and scope = ${scope} and scope_id = ${scopeId}`;
      return c.json({ status: "ok" as const }, 200);
    },
  );
}
