import { listProbeConfigs } from "@dbmon/contract";
import { connectionPlacements, resolveProbeConfig } from "@dbmon/datastore";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { PROBE_CONFIG_COLUMNS, type ProbeConfigRow } from "../../probes/configs.js";

export function registerListProbeConfigs(app: App): void {
  app.openapi(guarded(listProbeConfigs, {}), async (c) => {
    const { connection_id: connectionId } = c.req.valid("query");
    const { sql } = c.get("services").datastore;
    if (connectionId === undefined) {
      const rows = await sql.unsafe<ProbeConfigRow[]>(
        `select ${PROBE_CONFIG_COLUMNS} from probe_configs p where p.scope = 'global' order by p.name`,
      );
      return c.json(rows, 200);
    }
    await c.get("access").require({ connection: { query: "connection_id", level: "read" } }, connectionId);
    const [rows, placements] = await Promise.all([
      sql.unsafe<(ProbeConfigRow & { scope: "global" | "group" | "cluster" | "server"; scope_id: number })[]>(
        `select ${PROBE_CONFIG_COLUMNS}, p.scope, p.scope_id from probe_configs p order by p.name, p.id`,
      ),
      connectionPlacements(sql, [connectionId]),
    ]);
    const placement = placements.get(connectionId) ?? { clusterId: null, groupId: null };
    const names = [...new Set(rows.filter((row) => row.scope === "global").map((row) => row.name))];
    const effective = names.flatMap((name) => {
      const row = resolveProbeConfig(
        rows.filter((candidate) => candidate.name === name),
        connectionId,
        placement,
      );
      if (!row) {
        return [];
      }
      const { scope: _scope, scope_id: _scopeId, ...config } = row;
      return [config];
    });
    return c.json(effective, 200);
  });
}
