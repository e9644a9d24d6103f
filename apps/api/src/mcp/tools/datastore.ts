import { z } from "zod";
import { Forbidden } from "../../errors.js";
import { defineTool } from "../tool.js";
import { pagingArgs, presentRun } from "./sql.js";

export const queryDatastore = defineTool({
  name: "query_datastore",
  privilege: "query_datastore",
  description:
    "Run read-only SQL against dbmon's own datastore (PostgreSQL) and get the rows back as TSV. It holds the collected history: schema `metrics` has one table per probe (named as in list_probes, columns as in describe_probe, keyed by connection_id, collected_at and, for database probes, database_name; server and host probes other than pg_settings and pg_node_role are stored once per server, under the lowest-id monitored connection with the same host, hostaddr and port, and a database probe's database under the connection that collects it: the connection registered for that database, else that lowest-id one) plus the active session history (activity_samples, activity_minutes, activity_hours and their ticks), and `public` has health_check_status, health_check_evaluations, health_check_changes, alerts, alert_rules, alert_thresholds, alert_acknowledgments, metric_baselines, blackouts, blackout_schedules, connections (without credentials), clusters, cluster_groups, cluster_node_relationships, probe_configs, notification_channels and notification_history (without secrets), rbac_groups and knowledge_base_chunks. Credentials, sessions, tokens, password hashes and users' conversations and memories are not readable. Use it for questions the other tools cannot answer, such as comparing metrics across connections or over long periods; prefer query_metrics for one probe on one connection. Only SELECT, WITH, VALUES, TABLE, SHOW and EXPLAIN (without ANALYZE) with the functions of dbmon's read-only list, read by PostgreSQL's parser and run in a READ ONLY transaction as a login role of its own; 30 s per call; `limit` rows per statement (default 100, at most 1000).",
  compactDescription: "Read-only SQL on dbmon's datastore (metrics.*, alerts); returns TSV.",
  input: {
    query: z.string().min(1).describe("Read-only SQL; several statements may be separated by semicolons"),
    ...pagingArgs,
  },
  async run(context, args) {
    // The datastore holds every connection's history and the tool cannot filter SQL it did not
    // write, so it is only for callers from whom no connection is hidden (token scopes included).
    if (!(await context.access.visibleConnections()).all) {
      throw new Forbidden(
        "Access denied: query_datastore reads the history of every connection, and some are hidden from you",
      );
    }
    const statements = await context.services.sql.parse(args.query);
    const caller = await context.access.requireCaller();
    const results = await context.services.datastoreReader.run(caller.userId, statements, {
      maxRows: args.offset + args.limit + 1,
      signal: context.signal,
    });
    return presentRun(results, args.offset, args.limit);
  },
});

export const datastoreTools = [queryDatastore];
