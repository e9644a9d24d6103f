import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import {
  acknowledgeAlert,
  alertCounts,
  createBlackout,
  createBlackoutSchedule,
  createEmailRecipient,
  createNotificationChannel,
  deleteAlertOverride,
  deleteBlackout,
  deleteBlackoutSchedule,
  deleteChannelOverride,
  deleteEmailRecipient,
  deleteNotificationChannel,
  getAlertOverrideContext,
  getAlertRule,
  getBlackout,
  getBlackoutSchedule,
  getNotificationChannel,
  listAlertOverrides,
  listAlertRules,
  listAlerts,
  listBlackoutSchedules,
  listBlackouts,
  listChannelOverrides,
  listEmailRecipients,
  listNotificationChannels,
  saveAlertAnalysis,
  stopBlackout,
  testNotificationChannel,
  unacknowledgeAlert,
  updateAlertRule,
  updateBlackout,
  updateBlackoutSchedule,
  updateEmailRecipient,
  updateNotificationChannel,
  upsertAlertOverride,
  upsertChannelOverride,
} from "@dbmon/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InputOf } from "./contract-types.js";
import {
  buildTestApp,
  createUser,
  requestJson,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

let t: TestApp;
let admin: TestUser;
let plain: TestUser;
let ruleManager: TestUser;
let blackoutManager: TestUser;
let channelManager: TestUser;
let visibleId: number;
let hiddenId: number;

async function addConnection(name: string, owner: string, shared: boolean): Promise<number> {
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared)
    values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', ${owner}, ${shared}) returning id`;
  const id = (row as { id: number }).id;
  t.connections.push({ id, ownerUsername: owner, isShared: shared });
  return id;
}

async function addAlert(connectionId: number, status = "active", severity = "warning"): Promise<number> {
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into alerts (alert_type, connection_id, severity, title, description, status, metric_name, metric_value)
    values ('threshold', ${connectionId}, ${severity}, 'Connection error: x', 'refused', ${status}, null, null)
    returning id::int as id`;
  return (row as { id: number }).id;
}

/** A raw request, for refusals and for values the typed client would not send. */
const call = (path: string, user: TestUser | undefined, method = "GET", body?: unknown) =>
  requestJson(t.app, path, { method, body, token: user?.token });
/** The typed client of a user: successes are checked against the contract. */
const as = (user: TestUser) => typedClient(t, user.token);

beforeAll(async () => {
  t = await buildTestApp({ config: { notificationAllowedHosts: "127.0.0.1" } });
  admin = await createUser(t, "root", { superuser: true });
  plain = await createUser(t, "plain");
  ruleManager = await createUser(t, "rules", { permissions: ["manage_alert_rules"] });
  blackoutManager = await createUser(t, "blackouts", { permissions: ["manage_blackouts"] });
  channelManager = await createUser(t, "channels", { permissions: ["manage_notification_channels"] });
  visibleId = await addConnection("visible", "plain", false);
  hiddenId = await addConnection("hidden", "root", false);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe("alerts", () => {
  it("lists alerts of visible connections with the whole shape, newest first", async () => {
    const older = await addAlert(visibleId);
    const hidden = await addAlert(hiddenId, "active", "critical");
    const newer = await addAlert(visibleId, "cleared");
    await t.datastore
      .sql`update alerts set triggered_at = now() - interval '1 hour', cleared_at = null where id = ${older}`;
    await t.datastore.sql`update alerts set cleared_at = now() where id = ${newer}`;
    const body = await as(plain).call(listAlerts, { query: {} });
    expect(body.total).toBe(2);
    expect(body.alerts.map((a) => a.id)).toEqual([newer, older]);
    expect(body.alerts[1]).toMatchObject({
      id: older,
      alert_type: "threshold",
      connection_id: visibleId,
      server_name: "visible",
      severity: "warning",
      status: "active",
      title: "Connection error: x",
      description: "refused",
      rule_id: null,
      metric_value: null,
      false_positive: false,
      acknowledged_by: null,
    });
    expect(body.alerts[1]?.triggered_at).toMatch(/Z$/);
    const all = (await (await call("/api/v1/alerts?exclude_cleared=1&limit=abc", admin)).json()) as {
      alerts: { id: number }[];
    };
    expect(all.alerts.map((a) => a.id).sort()).toEqual([older, hidden].sort());
    const filtered = await as(plain).call(listAlerts, { query: { connection_ids: String(hiddenId) } });
    expect(filtered).toEqual({ alerts: [], total: 0 });
    const severity = await as(admin).call(listAlerts, { query: { severity: "critical" } });
    expect(severity.total).toBe(1);
    // A filter outside its set is refused, not an empty list; an empty one filters nothing.
    for (const [query, error] of [
      ["status=open", "Invalid status: must be active, acknowledged or cleared"],
      ["severity=crit", "Invalid severity: must be info, warning or critical"],
      ["alert_type=thresholds", "Invalid alert_type: must be threshold, anomaly or connection"],
    ]) {
      const refused = await call(`/api/v1/alerts?${query}`, admin);
      expect(refused.status, query).toBe(400);
      expect(await refused.json()).toEqual({ error });
    }
    expect((await call("/api/v1/alerts?status=&severity=", admin)).status).toBe(200);
    expect((await call("/api/v1/alerts", undefined)).status).toBe(401);
  });

  it("counts active alerts by server", async () => {
    const body = await as(plain).call(alertCounts);
    expect(body.by_server[String(visibleId)]).toBeGreaterThan(0);
    expect(body.by_server[String(hiddenId)]).toBeUndefined();
    const nobody = await createUser(t, "nobody");
    t.connections.splice(0, 0);
    expect(await as(nobody).call(alertCounts)).toMatchObject({ total: 0, by_server: {} });
  });

  it("acknowledges and un-acknowledges", async () => {
    const id = await addAlert(visibleId);
    expect(await (await call("/api/v1/alerts/acknowledge", plain, "POST", {})).json()).toEqual({
      error: "alert_id is required",
    });
    expect((await call("/api/v1/alerts/acknowledge", plain, "POST", { alert_id: 999999 })).status).toBe(404);
    const hidden = await addAlert(hiddenId);
    const refused = await call("/api/v1/alerts/acknowledge", plain, "POST", { alert_id: hidden });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ error: "Access denied" });
    const ok = await as(plain).call(acknowledgeAlert, {
      body: { alert_id: id, message: "looking", false_positive: true },
    });
    expect(ok).toEqual({ status: "acknowledged" });
    const [listed] = (await as(plain).call(listAlerts, { query: { status: "acknowledged" } })).alerts;
    expect(listed).toMatchObject({
      id,
      acknowledged_by: "plain",
      ack_message: "looking",
      false_positive: true,
    });
    expect((await call("/api/v1/alerts/acknowledge", plain, "POST", { alert_id: id })).status).toBe(409);
    expect(await (await call("/api/v1/alerts/acknowledge", plain, "DELETE")).json()).toEqual({
      error: "alert_id query parameter is required",
    });
    expect(await (await call("/api/v1/alerts/acknowledge?alert_id=abc", plain, "DELETE")).json()).toEqual({
      error: "Invalid alert_id",
    });
    // An id beyond the column's 32 bits names no row: refused like any malformed id.
    for (const beyond of ["2147483648", "9999999999999999"]) {
      const refused = await call(`/api/v1/alerts/acknowledge?alert_id=${beyond}`, plain, "DELETE");
      expect([refused.status, await refused.json()]).toEqual([400, { error: "Invalid alert_id" }]);
    }
    expect((await call("/api/v1/alerts/acknowledge?alert_id=999999", plain, "DELETE")).status).toBe(404);
    expect(await as(plain).call(unacknowledgeAlert, { query: { alert_id: id } })).toEqual({
      status: "active",
    });
    const again = await call(`/api/v1/alerts/acknowledge?alert_id=${id}`, plain, "DELETE");
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: "Alert is not currently acknowledged" });
    const [{ n }] = (await t.datastore
      .sql`select count(*)::int as n from alert_acknowledgments where alert_id = ${id}`) as unknown as [
      { n: number },
    ];
    expect(n).toBe(0);
    const wrongMethod = await call("/api/v1/alerts/acknowledge", plain, "PUT", {});
    expect(wrongMethod.status).toBe(405);
  });

  it("saves an analysis", async () => {
    const id = await addAlert(visibleId);
    expect(await (await call("/api/v1/alerts/analysis", plain, "PUT", { alert_id: id })).json()).toEqual({
      error: "analysis is required",
    });
    expect(await (await call("/api/v1/alerts/analysis", plain, "PUT", { analysis: "x" })).json()).toEqual({
      error: "alert_id is required",
    });
    const saved = await as(plain).call(saveAlertAnalysis, {
      body: { alert_id: id, analysis: "disk", metric_value: 3 },
    });
    expect(saved).toEqual({ status: "saved" });
    const [row] = await t.datastore
      .sql`select ai_analysis, ai_analysis_metric_value from alerts where id = ${id}`;
    expect(row).toEqual({ ai_analysis: "disk", ai_analysis_metric_value: 3 });
    expect((await call("/api/v1/alerts/analysis", plain, "POST", {})).status).toBe(405);
  });
});

describe("alert rules and overrides", () => {
  it("lists the 36 built-in rules with the reference's defaults (and the two over active session history)", async () => {
    const rules = await as(plain).call(listAlertRules);
    expect(rules).toHaveLength(36);
    expect(rules.find((rule) => rule.name === "database_load_above_vcpus")).toMatchObject({
      category: "performance",
      metric_name: "activity_sampling.load_per_vcpu",
      metric_unit: "ratio",
      default_operator: ">",
      default_threshold: 1,
      default_severity: "warning",
      default_enabled: true,
      is_built_in: true,
    });
    expect(rules.find((rule) => rule.name === "session_blocked_duration")).toMatchObject({
      category: "locks",
      metric_name: "activity_sampling.max_blocked_seconds",
      metric_unit: "seconds",
      default_operator: ">",
      default_threshold: 30,
      default_severity: "warning",
      is_built_in: true,
    });
    const disk = rules.find((rule) => rule.name === "disk_usage_critical");
    expect(disk).toMatchObject({
      category: "storage",
      metric_name: "pg_sys_disk_info.used_percent",
      default_operator: ">",
      default_threshold: 95,
      default_severity: "critical",
      default_enabled: true,
      default_duration_seconds: 0,
      required_extension: "system_stats",
      is_built_in: true,
    });
    const categories = rules.map((rule) => `${rule.category}/${rule.name}`);
    expect(categories).toEqual([...categories].sort());
  });

  it("gets and updates a rule", async () => {
    const [rule] = await t.datastore.sql<
      { id: number }[]
    >`select id from alert_rules where name = 'blocked_queries'`;
    const id = (rule as { id: number }).id;
    expect(await as(plain).call(getAlertRule, { params: { id } })).toMatchObject({
      id,
      default_threshold: 5,
    });
    expect(await (await call("/api/v1/alert-rules/abc", plain)).json()).toEqual({
      error: "Invalid alert rule ID",
    });
    expect(await (await call("/api/v1/alert-rules/99999", plain)).json()).toEqual({
      error: "Alert rule not found",
    });
    const refused = await call(`/api/v1/alert-rules/${id}`, plain, "PUT", { default_threshold: 3 });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: "Permission denied: you do not have permission to manage alert rules",
    });
    expect(
      (await call(`/api/v1/alert-rules/${id}`, ruleManager, "PUT", { default_operator: "~" })).status,
    ).toBe(400);
    const updated = await as(ruleManager).call(updateAlertRule, {
      params: { id },
      body: { default_threshold: 3, default_duration_seconds: 120 },
    });
    expect(updated).toMatchObject({
      id,
      default_threshold: 3,
      default_operator: ">",
      default_duration_seconds: 120,
    });
    await as(ruleManager).call(updateAlertRule, {
      params: { id },
      body: { default_threshold: 5, default_duration_seconds: 0 },
    });
  });

  it("manages overrides per scope", async () => {
    const [rule] = await t.datastore.sql<
      { id: number }[]
    >`select id from alert_rules where name = 'cpu_usage_high'`;
    const ruleId = (rule as { id: number }).id;
    expect(await (await call("/api/v1/alert-overrides/region/1", plain)).json()).toEqual({
      error: "Invalid scope: must be server, cluster, or group",
    });
    expect(await (await call("/api/v1/alert-overrides/server/abc", plain)).json()).toEqual({
      error: "Invalid scope ID",
    });
    expect(await (await call("/api/v1/alert-overrides/server/1/abc", ruleManager, "PUT", {})).json()).toEqual(
      {
        error: "Invalid rule ID",
      },
    );
    expect((await call("/api/v1/alert-overrides/server/1", plain, "POST")).status).toBe(405);
    const body = {
      operator: ">=",
      threshold: 70,
      severity: "critical",
      enabled: true,
      duration_seconds: 300,
    } as const;
    const refused = await call(`/api/v1/alert-overrides/server/${visibleId}/${ruleId}`, plain, "PUT", body);
    expect(refused.status).toBe(403);
    expect(
      (
        await call(`/api/v1/alert-overrides/server/${visibleId}/${ruleId}`, ruleManager, "PUT", {
          operator: ">",
        })
      ).status,
    ).toBe(400);
    // Writes check the scope's visibility like reads: ruleManager cannot see visibleId (plain's).
    const unseen = await call(
      `/api/v1/alert-overrides/server/${visibleId}/${ruleId}`,
      ruleManager,
      "PUT",
      body,
    );
    expect(unseen.status).toBe(404);
    expect(await unseen.json()).toEqual({ error: "Alert override scope not found" });
    expect(
      (await call(`/api/v1/alert-overrides/server/${visibleId}/${ruleId}`, ruleManager, "DELETE")).status,
    ).toBe(404);
    const ownId = await addConnection("rules-own", "rules", false);
    const ownScope = { scope: "server", scopeId: ownId, ruleId } as const;
    expect(await as(ruleManager).call(upsertAlertOverride, { params: ownScope, body })).toEqual({
      status: "ok",
    });
    expect(await as(ruleManager).call(deleteAlertOverride, { params: ownScope })).toEqual({ status: "ok" });
    const visibleScope = { scope: "server", scopeId: visibleId, ruleId } as const;
    expect(await as(admin).call(upsertAlertOverride, { params: visibleScope, body })).toEqual({
      status: "ok",
    });
    const list = await as(plain).call(listAlertOverrides, {
      params: { scope: "server", scopeId: visibleId },
    });
    expect(list).toHaveLength(36);
    expect(list.find((row) => row.rule_id === ruleId)).toMatchObject({
      name: "cpu_usage_high",
      default_threshold: 80,
      has_override: true,
      override_operator: ">=",
      override_threshold: 70,
      override_severity: "critical",
      override_enabled: true,
      override_duration_seconds: 300,
    });
    expect(list.find((row) => row.rule_id !== ruleId)).toMatchObject({
      has_override: false,
      override_operator: null,
    });
    expect((await call(`/api/v1/alert-overrides/server/${hiddenId}`, plain)).status).toBe(404);
    expect(await (await call(`/api/v1/alert-overrides/server/${hiddenId}`, plain)).json()).toEqual({
      error: "Alert override scope not found",
    });
    const context = await call(`/api/v1/alert-overrides/context/${visibleId}/${ruleId}`, ruleManager);
    expect(context.status).toBe(404);
    const contextAdmin = await as(admin).call(getAlertOverrideContext, {
      params: { connectionId: visibleId, ruleId },
    });
    expect(contextAdmin).toMatchObject({
      hierarchy: { connection_id: visibleId, cluster_id: null, group_id: null, server_name: "visible" },
      rule: { id: ruleId, name: "cpu_usage_high" },
      overrides: {
        server: { operator: ">=", threshold: 70, severity: "critical", enabled: true, duration_seconds: 300 },
        cluster: null,
        group: null,
      },
    });
    expect((await call(`/api/v1/alert-overrides/context/${visibleId}/${ruleId}`, plain)).status).toBe(403);
    const [group] = await t.datastore.sql<{ id: number }[]>`
      insert into cluster_groups (name) values ('context-group') returning id`;
    const [cluster] = await t.datastore.sql<{ id: number }[]>`
      insert into clusters (name, group_id) values ('context-cluster', ${group?.id ?? 0}) returning id`;
    await t.datastore.sql`update connections set cluster_id = ${cluster?.id ?? 0} where id = ${visibleId}`;
    const placed = await as(admin).call(getAlertOverrideContext, {
      params: { connectionId: visibleId, ruleId },
    });
    expect(placed.hierarchy).toEqual({
      connection_id: visibleId,
      cluster_id: cluster?.id,
      group_id: group?.id,
      server_name: "visible",
      cluster_name: "context-cluster",
      group_name: "context-group",
    });
    await t.datastore.sql`update connections set cluster_id = null where id = ${visibleId}`;
    expect(await as(admin).call(deleteAlertOverride, { params: visibleScope })).toEqual({ status: "ok" });
  });
});

describe("blackouts", () => {
  const hour = 3_600_000;
  const at = (offset: number) => new Date(Date.now() + offset).toISOString();
  /** A connection the blackout manager and plain both see. */
  let sharedId: number;

  beforeAll(async () => {
    sharedId = await addConnection("shared", "root", true);
  });

  it("validates and creates blackouts", async () => {
    const post = (body: unknown, user = blackoutManager) => call("/api/v1/blackouts", user, "POST", body);
    const base = { scope: "estate", reason: "upgrade", start_time: at(-hour), end_time: at(hour) };
    expect((await post({ ...base, start_time: "not-a-time" })).status).toBe(400);
    expect(await (await post({ ...base, start_time: "not-a-time" })).json()).toEqual({
      error: "Invalid start_time format, expected RFC3339",
    });
    expect(await (await post({ ...base, end_time: at(-2 * hour) })).json()).toEqual({
      error: "end_time must be after start_time",
    });
    expect(((await (await post({ ...base, scope: "invalid" })).json()) as { error: string }).error).toContain(
      "invalid scope",
    );
    expect(await (await post({ ...base, scope: "server" })).json()).toEqual({
      error: "server scope requires connection_id",
    });
    expect((await post({ ...base, connection_id: visibleId })).status).toBe(400);
    expect((await post(base, plain)).status).toBe(403);
    const create = (body: InputOf<typeof createBlackout>["body"]) =>
      as(blackoutManager).call(createBlackout, { body });
    const typedBase = { ...base, scope: "estate" } as const;
    const blackout = await create({
      ...typedBase,
      scope: "server",
      connection_id: sharedId,
      database_name: "app",
    });
    expect(blackout).toMatchObject({
      scope: "server",
      connection_id: sharedId,
      group_id: null,
      cluster_id: null,
      database_name: "app",
      reason: "upgrade",
      created_by: "blackouts",
      is_active: true,
    });
    // The list's scope filter is one of the four scopes: another is refused, not an empty list.
    expect(await (await call("/api/v1/blackouts?scope=servers", admin)).json()).toEqual({
      error: "Invalid scope: must be estate, group, cluster or server",
    });
    expect((await call("/api/v1/blackout-schedules?scope=servers", admin)).status).toBe(400);
    expect((await call("/api/v1/blackouts?scope=server", admin)).status).toBe(200);
    // The estate holds connections the manager cannot see: only who sees them all silences it
    // (scoped-settings.test.ts has the rule).
    expect((await post({ ...base, start_time: at(hour), end_time: at(2 * hour) })).status).toBe(403);
    const future = await as(admin).call(createBlackout, {
      body: { ...typedBase, start_time: at(hour), end_time: at(2 * hour) },
    });
    expect(future.is_active).toBe(false);
    // Nothing is created on a scope the manager cannot see; a superuser sees them all.
    expect(await (await post({ ...base, scope: "server", connection_id: hiddenId })).json()).toEqual({
      error: "Connection not found",
    });
    const hiddenOne = await as(admin).call(createBlackout, {
      body: { ...typedBase, scope: "server", connection_id: hiddenId },
    });

    const active = await as(plain).call(listBlackouts, { query: { active: true } });
    expect(active.blackouts.map((b) => b.id)).toEqual([blackout.id]);
    expect(active.total_count).toBe(1);
    const all = await as(admin).call(listBlackouts, { query: {} });
    expect(all.total_count).toBe(3);
    expect((await call(`/api/v1/blackouts/${hiddenOne.id}`, plain)).status).toBe(404);
    expect(await as(plain).call(getBlackout, { params: { id: blackout.id } })).toMatchObject({
      id: blackout.id,
    });

    const updated = await as(blackoutManager).call(updateBlackout, {
      params: { id: blackout.id },
      body: { reason: "longer" },
    });
    expect(updated).toMatchObject({ reason: "longer", is_active: true });
    expect(
      (await call(`/api/v1/blackouts/${blackout.id}`, blackoutManager, "PUT", { end_time: at(-3 * hour) }))
        .status,
    ).toBe(400);

    expect((await call(`/api/v1/blackouts/${blackout.id}/stop`, blackoutManager, "GET")).status).toBe(405);
    const stoppedBody = await as(blackoutManager).call(stopBlackout, { params: { id: blackout.id } });
    expect(stoppedBody.is_active).toBe(false);
    expect(Math.abs(new Date(stoppedBody.end_time).getTime() - Date.now())).toBeLessThan(10_000);
    const again = await call(`/api/v1/blackouts/${blackout.id}/stop`, blackoutManager, "POST");
    expect(await again.json()).toEqual({ error: "Blackout not found or not currently active" });
    await as(admin).call(stopBlackout, { params: { id: future.id } });

    expect(await as(blackoutManager).call(deleteBlackout, { params: { id: blackout.id } })).toEqual({
      status: "deleted",
    });
    expect((await call(`/api/v1/blackouts/${blackout.id}`, blackoutManager, "DELETE")).status).toBe(404);
    expect((await call("/api/v1/blackouts/abc", plain)).status).toBe(400);
  });

  it("validates and stores schedules", async () => {
    const post = (body: unknown) => call("/api/v1/blackout-schedules", blackoutManager, "POST", body);
    const base = {
      scope: "server",
      connection_id: sharedId,
      name: "weekly",
      cron_expression: "0 2 * * 0",
      duration_minutes: 60,
      reason: "vacuum",
    };
    // The estate holds connections the manager cannot see (scoped-settings.test.ts has the rule).
    expect((await post({ ...base, scope: "estate", connection_id: undefined })).status).toBe(403);
    expect(await (await post({ ...base, name: "" })).json()).toEqual({ error: "Name is required" });
    expect(await (await post({ ...base, cron_expression: "" })).json()).toEqual({
      error: "Cron expression is required",
    });
    expect(await (await post({ ...base, duration_minutes: 0 })).json()).toEqual({
      error: "Duration minutes must be positive",
    });
    expect((await post({ ...base, cron_expression: "61 * * * *" })).status).toBe(400);
    expect((await post({ ...base, timezone: "Mars/Olympus" })).status).toBe(400);
    const typedBase = { ...base, scope: "server" } as const;
    const schedule = await as(blackoutManager).call(createBlackoutSchedule, { body: typedBase });
    expect(schedule).toMatchObject({
      ...base,
      timezone: "UTC",
      enabled: true,
      created_by: "blackouts",
      connection_id: sharedId,
    });
    const list = await as(plain).call(listBlackoutSchedules, { query: {} });
    expect(list.total_count).toBe(1);
    const updated = await as(blackoutManager).call(updateBlackoutSchedule, {
      params: { id: schedule.id },
      body: { ...typedBase, timezone: "Europe/Paris", enabled: false },
    });
    expect(updated).toMatchObject({
      timezone: "Europe/Paris",
      enabled: false,
      created_by: "blackouts",
    });
    expect((await as(plain).call(listBlackoutSchedules, { query: { enabled: true } })).total_count).toBe(0);
    expect(await as(plain).call(getBlackoutSchedule, { params: { id: schedule.id } })).toMatchObject({
      id: schedule.id,
    });
    expect((await call(`/api/v1/blackout-schedules/${schedule.id}`, plain, "DELETE")).status).toBe(403);
    expect(await as(blackoutManager).call(deleteBlackoutSchedule, { params: { id: schedule.id } })).toEqual({
      status: "deleted",
    });
    expect(await (await call(`/api/v1/blackout-schedules/${schedule.id}`, plain)).json()).toEqual({
      error: "Blackout schedule not found",
    });
  });
});

describe("notification channels", () => {
  it("needs manage_notification_channels for every route", async () => {
    const refused = await call("/api/v1/notification-channels", plain);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: "Permission denied: you do not have permission to manage notification channels",
    });
  });

  /** Creates a channel as the channel manager, through the typed client. */
  const createChannel = (body: InputOf<typeof createNotificationChannel>["body"]) =>
    as(channelManager).call(createNotificationChannel, { body });

  it("validates, redacts secrets and merges updates", async () => {
    const post = (body: unknown) => call("/api/v1/notification-channels", channelManager, "POST", body);
    const channels = as(channelManager);
    expect(await (await post({ channel_type: "email", name: "mail", from_address: "a@b" })).json()).toEqual({
      error: "smtp_host is required for email channels",
    });
    expect(await (await post({ channel_type: "sms", name: "x" })).json()).toEqual({
      error: "Invalid channel_type: must be one of email, slack, mattermost, webhook",
    });
    expect(await (await post({ channel_type: "slack", name: "" })).json()).toEqual({
      error: "Name is required",
    });
    const slack = await createChannel({
      channel_type: "slack",
      name: "ops",
      webhook_url: "https://hooks.example/x",
    });
    expect(slack).toMatchObject({
      webhook_url_set: true,
      channel_type: "slack",
      http_method: "POST",
      owner_username: "channels",
    });
    expect(slack).not.toHaveProperty("webhook_url");
    const hook = await createChannel({
      channel_type: "webhook",
      name: "generic",
      endpoint_url: "https://example.com/hook",
      headers: { "X-B": "1", "X-A": "2" },
      auth_type: "bearer",
      auth_credentials: "s3cr3t-bearer",
    });
    expect(hook).toMatchObject({
      header_names: ["X-A", "X-B"],
      auth_credentials_set: true,
      auth_type: "bearer",
    });
    expect(JSON.stringify(hook)).not.toContain("s3cr3t-bearer");
    const email = await createChannel({
      channel_type: "email",
      name: "mail",
      smtp_host: "smtp.example.com",
      from_address: "dbmon@example.com",
      smtp_username: "u",
      smtp_password: "secret-password",
    });
    expect(email).toMatchObject({
      smtp_password_set: true,
      smtp_username_set: true,
      recipients: [],
      smtp_port: 587,
    });
    const [stored] = await t.datastore
      .sql`select smtp_password_encrypted from notification_channels where id = ${email.id}`;
    expect(String(stored?.smtp_password_encrypted)).toMatch(/^v1:/);

    const params = { id: email.id };
    const kept = await channels.call(updateNotificationChannel, { params, body: { name: "mail2" } });
    expect(kept).toMatchObject({ name: "mail2", smtp_password_set: true });
    const cleared = await channels.call(updateNotificationChannel, { params, body: { smtp_password: "" } });
    expect(cleared).toMatchObject({ smtp_password_set: false });
    expect(
      (await call(`/api/v1/notification-channels/${email.id}`, channelManager, "PUT", { smtp_host: "" }))
        .status,
    ).toBe(400);

    const list = await channels.call(listNotificationChannels);
    expect(list.map((c) => c.name)).toEqual(["generic", "mail2", "ops"]);
    expect(await (await call("/api/v1/notification-channels/99999", channelManager)).json()).toEqual({
      error: "Notification channel not found",
    });
    expect(await (await call("/api/v1/notification-channels/abc", channelManager)).json()).toEqual({
      error: "Invalid notification channel ID",
    });

    // recipients
    const base = `/api/v1/notification-channels/${email.id}/recipients`;
    expect(await (await call(base, channelManager, "POST", { email_address: "nobody" })).json()).toEqual({
      error: "A valid email_address is required (must contain @)",
    });
    const recipient = await channels.call(createEmailRecipient, {
      params,
      body: { email_address: "dba@example.com", display_name: "DBA" },
    });
    expect(recipient).toMatchObject({
      channel_id: email.id,
      email_address: "dba@example.com",
      display_name: "DBA",
      enabled: true,
    });
    const ofRecipient = { ...params, recipientId: recipient.id };
    const changed = await channels.call(updateEmailRecipient, {
      params: ofRecipient,
      body: { email_address: "x@example.com", enabled: false },
    });
    expect(changed).toMatchObject({
      email_address: "x@example.com",
      enabled: false,
      display_name: null,
    });
    expect(await channels.call(listEmailRecipients, { params })).toHaveLength(1);
    expect((await channels.call(getNotificationChannel, { params })).recipients).toHaveLength(1);
    expect(
      await (await call(`${base}/999999`, channelManager, "PUT", { email_address: "a@b" })).json(),
    ).toEqual({
      error: "Email recipient not found",
    });
    expect(await channels.call(deleteEmailRecipient, { params: ofRecipient })).toEqual({ status: "deleted" });

    // channel overrides
    const overrides = `/api/v1/channel-overrides/server/${visibleId}`;
    expect(
      await (await call(`${overrides}/${slack.id}`, channelManager, "PUT", { enabled: "yes" })).json(),
    ).toEqual({
      error: "Request failed",
    });
    // Writes check the scope's visibility like reads: channelManager cannot see visibleId (plain's).
    const unseen = await call(`${overrides}/${slack.id}`, channelManager, "PUT", { enabled: false });
    expect(unseen.status).toBe(404);
    expect(await unseen.json()).toEqual({ error: "Channel override scope not found" });
    expect((await call(`${overrides}/${slack.id}`, channelManager, "DELETE")).status).toBe(404);
    const scope = { scope: "server", scopeId: visibleId } as const;
    const ofSlack = { ...scope, channelId: slack.id };
    expect(
      await as(admin).call(upsertChannelOverride, { params: ofSlack, body: { enabled: false } }),
    ).toEqual({ status: "ok" });
    const listed = await as(admin).call(listChannelOverrides, { params: scope });
    expect(listed.find((row) => row.channel_id === slack.id)).toEqual({
      channel_id: slack.id,
      channel_name: "ops",
      channel_type: "slack",
      description: null,
      is_estate_default: false,
      has_override: true,
      override_enabled: false,
    });
    expect(await (await call("/api/v1/channel-overrides/region/1", channelManager)).json()).toEqual({
      error: "Invalid scope: must be server, cluster, or group",
    });
    expect(await as(admin).call(deleteChannelOverride, { params: ofSlack })).toEqual({ status: "ok" });
    expect(await channels.call(deleteNotificationChannel, { params: { id: slack.id } })).toEqual({
      status: "deleted",
    });
  });

  it("refuses test sends to unconfigured channels and private hosts", async () => {
    const bare = await createChannel({ channel_type: "mattermost", name: "mm" });
    expect(
      await (await call(`/api/v1/notification-channels/${bare.id}/test`, channelManager, "POST")).json(),
    ).toEqual({
      error: "Webhook URL is not configured for this channel",
    });
    const metadata = await createChannel({
      channel_type: "webhook",
      name: "meta",
      endpoint_url: "http://169.254.169.254/latest",
    });
    expect(
      await (await call(`/api/v1/notification-channels/${metadata.id}/test`, channelManager, "POST")).json(),
    ).toEqual({
      error: "Invalid endpoint host",
    });
    const privateHost = await createChannel({
      channel_type: "slack",
      name: "lan",
      webhook_url: "http://10.1.2.3/hook",
    });
    expect(
      await (
        await call(`/api/v1/notification-channels/${privateHost.id}/test`, channelManager, "POST")
      ).json(),
    ).toEqual({
      error: "Invalid webhook host",
    });
    const mail = await createChannel({
      channel_type: "email",
      name: "m",
      smtp_host: "smtp.example.com",
      from_address: "a@b.c",
    });
    expect(
      await (await call(`/api/v1/notification-channels/${mail.id}/test`, channelManager, "POST", {})).json(),
    ).toEqual({
      error: "No recipients available. Provide a recipient_email or add enabled recipients to the channel.",
    });
  });
});

describe("test sends", () => {
  it("posts to a local webhook receiver, reports 502 on refusal, and sends email through SMTP", async () => {
    const received: { path: string; body: string; auth: string | undefined }[] = [];
    let status = 200;
    const http = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => {
        body += chunk;
      });
      req.on("end", () => {
        received.push({ path: req.url ?? "", body, auth: req.headers.authorization });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const mails: string[] = [];
    const smtp = createTcpServer((socket) => {
      let inData = false;
      let data = "";
      socket.write("220 sink\r\n");
      socket.on("data", (chunk) => {
        for (const line of chunk
          .toString()
          .split("\r\n")
          .filter((l, i, all) => i < all.length - 1 || l !== "")) {
          if (inData) {
            if (line === ".") {
              inData = false;
              mails.push(data);
              socket.write("250 ok\r\n");
            } else {
              data += `${line}\n`;
            }
          } else if (line.toUpperCase().startsWith("DATA")) {
            inData = true;
            socket.write("354 go\r\n");
          } else if (line.toUpperCase().startsWith("QUIT")) {
            socket.end("221 bye\r\n");
          } else {
            socket.write("250 ok\r\n");
          }
        }
      });
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    try {
      const port = (http.address() as { port: number }).port;
      const channels = as(channelManager);
      const hook = await channels.call(createNotificationChannel, {
        body: {
          channel_type: "webhook",
          name: "local hook",
          endpoint_url: `http://127.0.0.1:${port}/receive`,
          auth_type: "basic",
          auth_credentials: "user:pass",
        },
      });
      expect(await channels.call(testNotificationChannel, { params: { id: hook.id } })).toEqual({
        status: "sent",
      });
      expect(received[0]?.path).toBe("/receive");
      expect(received[0]?.auth).toBe(`Basic ${Buffer.from("user:pass").toString("base64")}`);
      expect(JSON.parse(received[0]?.body ?? "{}").text).toContain("local hook");
      status = 500;
      const refused = await call(`/api/v1/notification-channels/${hook.id}/test`, channelManager, "POST");
      expect(refused.status).toBe(502);
      expect(await refused.json()).toEqual({ error: "Failed to send test webhook" });

      const mail = await channels.call(createNotificationChannel, {
        body: {
          channel_type: "email",
          name: "local mail",
          smtp_host: "127.0.0.1",
          smtp_port: (smtp.address() as { port: number }).port,
          smtp_use_tls: false,
          from_address: "dbmon@example.com",
        },
      });
      const mailed = await channels.call(testNotificationChannel, {
        params: { id: mail.id },
        body: { recipient_email: "dba@example.com" },
      });
      expect(mailed).toEqual({ status: "sent" });
      expect(mails[0]).toContain("Subject: dbmon - Test Email");
      expect(mails[0]).toContain("dba@example.com");
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });
});
