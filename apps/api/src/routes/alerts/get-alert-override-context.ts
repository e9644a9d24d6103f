import { getAlertOverrideContext } from "@dbmon/contract";
import { manageRulesRefusal, presentRule, type RuleRow } from "../../alerting/rules.js";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

interface Hierarchy {
  connection_id: number;
  cluster_id: number | null;
  group_id: number | null;
  server_name: string;
  cluster_name: string | null;
  group_name: string | null;
}

interface Detail {
  operator: string;
  threshold: number;
  severity: string;
  enabled: boolean;
  duration_seconds: number | null;
}

export function registerGetAlertOverrideContext(app: App): void {
  app.openapi(
    guarded(getAlertOverrideContext, {
      permission: "manage_alert_rules",
      message: manageRulesRefusal,
    }),
    async (c) => {
      const { connectionId, ruleId } = c.req.valid("param");
      const sql = c.get("services").datastore.sql;
      const access = c.get("access");
      const [connection] = await sql<{ name: string; cluster_id: number | null }[]>`
        select name, cluster_id from connections where id = ${connectionId}`;
      if (!connection || (await access.connectionLevel(connectionId)) === undefined) {
        throw new ApiError(404, "Connection not found");
      }
      const [rule] = await sql<RuleRow[]>`select * from alert_rules where id = ${ruleId}`;
      if (!rule) {
        throw new ApiError(404, "Alert rule not found");
      }
      const hierarchy: Hierarchy = {
        connection_id: connectionId,
        cluster_id: null,
        group_id: null,
        server_name: connection.name,
        cluster_name: null,
        group_name: null,
      };
      if (connection.cluster_id !== null) {
        const [cluster] = await sql<
          { id: number; name: string; group_id: number | null; group_name: string | null }[]
        >`
          select k.id, k.name, k.group_id, g.name as group_name
          from clusters k left join cluster_groups g on g.id = k.group_id where k.id = ${connection.cluster_id}`;
        if (cluster) {
          hierarchy.cluster_id = cluster.id;
          hierarchy.cluster_name = cluster.name;
          hierarchy.group_id = cluster.group_id;
          hierarchy.group_name = cluster.group_name;
        }
      }
      const detail = async (scope: string, scopeId: number | null): Promise<Detail | null> => {
        if (scopeId === null) {
          return null;
        }
        const [row] = await sql<Detail[]>`
          select operator, threshold, severity, enabled, duration_seconds from alert_thresholds
          where rule_id = ${ruleId} and scope = ${scope} and scope_id = ${scopeId} and database_name = ''`;
        return row ?? null;
      };
      return c.json(
        {
          hierarchy,
          rule: presentRule(rule),
          overrides: {
            server: await detail("server", connectionId),
            cluster: await detail("cluster", hierarchy.cluster_id),
            group: await detail("group", hierarchy.group_id),
          },
        },
        200,
      );
    },
  );
}
