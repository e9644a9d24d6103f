// Mistakes a caller can make with the client, each of which must fail to compile: every
// `@ts-expect-error` below must have an error on its next line, or tsc reports it unused.
// type-mistakes.test.ts compiles this file; `pnpm typecheck` does too. Never run.
import { createClient, createDbmon, getHealth, listAlerts } from "../src/index.js";

export async function mistakes() {
  const dbmon = createDbmon({ baseUrl: "http://127.0.0.1:8080" });
  const client = createClient({ baseUrl: "http://127.0.0.1:8080" });

  // Required where the API requires.
  // @ts-expect-error metrics.query without probe_name (the API answers 400)
  await dbmon.metrics.query({ connection_id: 1 });
  // @ts-expect-error metrics.getBaselines without connection_id
  await dbmon.metrics.getBaselines({ probe_name: "pg_stat_database" });
  // @ts-expect-error metrics.getTopQueries without connection_id
  await dbmon.metrics.getTopQueries({ limit: 5 });
  // @ts-expect-error login without a password
  await dbmon.auth.login({ username: "admin" });
  // @ts-expect-error connections.get without its id
  await dbmon.connections.get({});
  // @ts-expect-error alerts.unacknowledge without alert_id
  await dbmon.alerts.unacknowledge();
  // @ts-expect-error llm.listModels without its provider
  await dbmon.llm.listModels();
  // @ts-expect-error metrics.query with neither connection_id nor connection_ids
  await dbmon.metrics.query({ probe_name: "pg_stat_database" });
  // @ts-expect-error metrics.getPerformanceSummary with no connection
  await dbmon.metrics.getPerformanceSummary();
  // @ts-expect-error metrics.getDatabaseSummaries with no connection
  await dbmon.metrics.getDatabaseSummaries({ time_range: "1h" });

  // Enums where the API accepts a fixed set.
  // @ts-expect-error typo'd aggregation
  await dbmon.metrics.query({ connection_id: 1, probe_name: "pg_stat_database", aggregation: "average" });
  // @ts-expect-error typo'd time_range
  await dbmon.metrics.query({ connection_id: 1, probe_name: "pg_stat_database", time_range: "2h" });
  // @ts-expect-error typo'd alert status
  await dbmon.alerts.list({ status: "open" });
  // @ts-expect-error typo'd alert severity
  await dbmon.alerts.list({ severity: "crit" });
  // @ts-expect-error typo'd alert_type
  await dbmon.alerts.list({ alert_type: "thresholds" });
  // @ts-expect-error typo'd blackout scope filter
  await dbmon.blackouts.list({ scope: "servers" });
  // @ts-expect-error typo'd timeline event type
  await dbmon.timeline.listEvents({ event_types: ["restarts"] });
  // @ts-expect-error typo'd overview scope_type
  await dbmon.overview.get({ scope_type: "estate", scope_id: "1" });

  // Id lists are number[], not the wire's comma string.
  // @ts-expect-error connection_ids as a comma string (alerts)
  await dbmon.alerts.list({ connection_ids: "1,2" });
  // @ts-expect-error connection_ids as a comma string (metrics)
  await dbmon.metrics.query({ connection_ids: "1,2", probe_name: "pg_stat_database" });
  // @ts-expect-error connection_ids as a comma string (overview)
  await dbmon.overview.get({ connection_ids: "1,2" });
  // @ts-expect-error connection_ids of strings
  await dbmon.timeline.listEvents({ connection_ids: ["1", "2"] });
  // @ts-expect-error metric names as a comma string
  await dbmon.metrics.query({ connection_id: 1, probe_name: "pg_stat_database", metrics: "a,b" });

  // No input means no argument (only options).
  // @ts-expect-error an input for connections.list, which takes none
  await dbmon.connections.list({ limit: 5 });
  // @ts-expect-error an input for utilities.getHealth
  await dbmon.utilities.getHealth({ verbose: true });
  // @ts-expect-error an input for alerts.getCounts
  await dbmon.alerts.getCounts({ connection_id: 1 });
  // @ts-expect-error a second argument beyond the options
  await dbmon.auth.getUserInfo({}, {});
  // @ts-expect-error parameters for an endpoint that takes none, through call
  await client.call(getHealth, { verbose: true });

  // Non-negative limits and offsets.
  // @ts-expect-error negative limit
  await dbmon.alerts.list({ limit: -5 });
  // @ts-expect-error negative offset
  await dbmon.alerts.list({ offset: -1 });
  // @ts-expect-error negative page size of an iterator
  dbmon.alerts.iterate({ limit: -10 });
  // @ts-expect-error negative limit of conversations
  await dbmon.conversations.list({ limit: -1 });

  // One spelling per concept: the client's ids are snake_case and named by what they are.
  // @ts-expect-error `id` for a connection
  await dbmon.connections.get({ id: 1 });
  // @ts-expect-error `connectionId` (the wire's path spelling)
  await dbmon.clusters.removeServerFromCluster({ cluster_id: "1", connectionId: 2 });
  // @ts-expect-error `connId` (the wire's path spelling)
  await dbmon.clusters.clearConnectionRelationships({ cluster_id: "1", connId: 2 });
  // @ts-expect-error `connectionId` for server information
  await dbmon.serverInfo.get({ connectionId: 1 });
  // @ts-expect-error a typo'd filter name
  await dbmon.alerts.list({ statuss: "active" });
  // @ts-expect-error an unknown parameter beside known ones
  await dbmon.alerts.list({ status: "active", connection: 1 });

  // Wrong types.
  // @ts-expect-error an id as a string
  await dbmon.connections.get({ connection_id: "1" });
  // @ts-expect-error a boolean filter as text
  await dbmon.alerts.list({ exclude_cleared: "true" });

  // Sub-resources are namespaces; the old flat names are gone.
  // @ts-expect-error rbac.listUsers (now rbac.users.list)
  await dbmon.rbac.listUsers();
  // @ts-expect-error rbac.createToken (now rbac.tokens.create)
  await dbmon.rbac.createToken({ owner_username: "svc" });
  // @ts-expect-error rbac.addGroupMember (now rbac.groups.addMember)
  await dbmon.rbac.addGroupMember({ group_id: 1, body: { user_id: 2 } });
  // @ts-expect-error probes.listConfigs (now probes.configs.list)
  await dbmon.probes.listConfigs();
  // @ts-expect-error clusters.listGroups (now clusters.groups.list)
  await dbmon.clusters.listGroups();
  // @ts-expect-error notifications.listChannels (now notifications.channels.list)
  await dbmon.notifications.listChannels();
  // @ts-expect-error alerts.listRules (now alerts.rules.list)
  await dbmon.alerts.listRules();
  // @ts-expect-error mcp.mcpJsonRpc (now mcp.jsonRpc)
  await dbmon.mcp.mcpJsonRpc({ jsonrpc: "2.0", method: "tools/list", id: 1 });

  // One login: auth.login keeps the token; there is no second one beside it.
  // @ts-expect-error dbmon.login (now dbmon.auth.login)
  await dbmon.login({ username: "admin", password: "secret" });
  // @ts-expect-error dbmon.logout (now dbmon.auth.logout)
  await dbmon.logout();

  // Results and events are typed.
  // @ts-expect-error a field the alert counts do not have
  void (await dbmon.alerts.getCounts()).totl;
  // @ts-expect-error the old structured input of call
  await client.call(listAlerts, { query: { status: "active" } });
  for await (const event of await dbmon.llm.chatStream({ messages: [{ role: "user", content: "hi" }] })) {
    // @ts-expect-error an event the chat stream does not send
    if (event.event === "deltas") {
      return;
    }
  }
}
