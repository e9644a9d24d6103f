import { randomBytes } from "node:crypto";
import { DATASTORE_READER_ROLE, type Datastore, openDatastore } from "@dbmon/datastore";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DatastoreReader } from "../src/sql/datastore-reader.js";
import { insertMetrics, prepareMetrics, seedProbeDefaults } from "./monitoring-support.js";
import { parseSql } from "./sql-support.js";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  registerTestServer,
  requestJson,
  type TestApp,
  type TestUser,
} from "./support.js";

describe("query_datastore", () => {
  let t: TestApp;
  let root: TestUser;
  let plain: TestUser;
  let granted: TestUser;
  let admin: postgres.Sql;
  const suffix = randomBytes(4).toString("hex");
  const extraRoles: string[] = [];

  const call = (token: string, args: Record<string, unknown>) =>
    callBridgeTool(t, token, "query_datastore", args);
  const run = async (query: string, args: Record<string, unknown> = {}) => {
    const result = await call(granted.token, { query, ...args });
    return { error: result.isError === true, text: result.content.map((c) => c.text).join("\n") };
  };

  beforeAll(async () => {
    t = await buildTestApp();
    admin = postgres(t.database.url, { max: 1, onnotice: () => {} });
    root = await createUser(t, "root", { superuser: true });
    plain = await createUser(t, "plain");
    granted = await createUser(t, "granted");
    const group = await t.services.auth.groups.create("datastore-readers", "");
    await t.services.auth.groups.addMember(group.id, { userId: granted.id });
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/mcp`, {
      method: "PUT",
      token: root.token,
      body: { privileges: ["query_datastore"] },
    });
    const connectionId = await registerTestServer(t, root.token);
    await requestJson(t.app, `/api/v1/rbac/groups/${group.id}/privileges/connections`, {
      method: "POST",
      token: root.token,
      body: { connection_id: connectionId, access_level: "read" },
    });
    await seedProbeDefaults(t);
    const now = new Date();
    await prepareMetrics(t, now);
    await insertMetrics(t, "pg_connectivity", [
      { connection_id: connectionId, collected_at: now, response_time_ms: 12 },
    ]);
    // Secrets of every kind, so that a leak would show.
    await requestJson(t.app, "/api/v1/rbac/tokens", {
      method: "POST",
      token: root.token,
      body: { owner_username: "root", annotation: "leak check" },
    });
    await admin`insert into notification_channels (channel_type, name, webhook_url_encrypted, smtp_password_encrypted)
                values ('slack', 'ops', 'enc:webhook', 'enc:smtp')`;
    await admin`insert into chat_memories (user_id, scope, category, content, created_at, updated_at)
                values (${root.id}, 'user', 'private', 'a private memory', now(), now())`;
  });

  afterAll(async () => {
    await admin.end();
    await t.close();
    const server = postgres(t.database.serverUrl, { max: 1, onnotice: () => {} });
    for (const role of extraRoles) {
      await server.unsafe(`drop role if exists "${role}"`);
    }
    await server.end();
  });

  it("reads collected metrics and alerting tables as the reader role, as TSV", async () => {
    expect(await run("select current_user as who")).toEqual({
      error: false,
      text: `who\n${DATASTORE_READER_ROLE}\n(1 row)`,
    });
    expect(await run("select response_time_ms from metrics.pg_connectivity")).toEqual({
      error: false,
      text: "response_time_ms\n12\n(1 row)",
    });
    const rules = await run("select count(*) > 0 as seeded from alert_rules");
    expect(rules.text).toBe("seeded\ntrue\n(1 row)");
    // Tables added after the role: health checks (granted by a later migration) and active session
    // history (in the metrics schema, whose default privileges cover it).
    const later = await run(
      "select (select count(*) from health_check_status) + (select count(*) from health_check_evaluations) + (select count(*) from health_check_changes) + (select count(*) from metrics.activity_minutes) + (select count(*) from metrics.activity_hours) as n",
    );
    expect(later).toEqual({ error: false, text: "n\n0\n(1 row)" });
    // Whose rows hold a server's data (migration 0030), and a probe stored as changed rows, read
    // through its view.
    const servers = await run(
      "select (select count(*) from dbmon_connection_servers where server_connection_id = connection_id) as served, (select count(*) from dbmon_database_sources where source_id = connection_id) as own, (select count(*) > 0 from server_wide_probes) as probes, (select count(*) from metrics.pg_stat_all_tables) as tables",
    );
    expect(servers).toEqual({ error: false, text: "served\town\tprobes\ttables\n1\t1\ttrue\t0\n(1 row)" });
    const names = await run("select name, host from connections; select username from users order by id");
    expect(names.error).toBe(false);
    expect(names.text).toContain("-- statement 2: select username from users order by id\nusername\nroot");
  });

  it("cannot read password hashes, sessions, tokens, encrypted passwords, channel secrets or private chats", async () => {
    const secrets = [
      "select password_hash from users",
      "select * from users",
      "select * from sessions",
      "select token_hash from service_tokens",
      "select credential_hash from connection_selections",
      "select password_encrypted from connections",
      "select webhook_url_encrypted from notification_channels",
      "select smtp_password_encrypted from notification_channels",
      "select headers_encrypted, auth_credentials_encrypted from notification_channels",
      "select content from chat_memories",
      "select messages from conversations",
      "select value from system_settings",
      "select email_address from email_recipients",
      "table users",
      "select (select password_hash from users limit 1) as x",
      "select query_to_xml('select password_hash from users', true, true, '')",
    ];
    for (const query of secrets) {
      const result = await run(query);
      expect(result, query).toMatchObject({ error: true });
      expect(result.text, query).toMatch(/permission denied|Refused/);
    }
    // Catalogue views show no other session's statements and no password hashes.
    expect((await run("select passwd from pg_shadow")).text).toMatch(/permission denied/);
    expect((await run("select rolpassword from pg_authid")).text).toMatch(/permission denied/);
  });

  it("cannot switch back to the API's own role, nor write", async () => {
    const attempts = [
      "reset role",
      "set role postgres",
      "set session authorization postgres",
      "select set_config('role', 'postgres', false)",
      "select pg_catalog.set_config('role', 'postgres', true)",
      "insert into alerts (alert_type, severity, title, status) values ('threshold', 'info', 'x', 'active')",
      "with gone as (delete from alerts returning id) select * from gone",
      "update alert_rules set default_enabled = false",
      "select * from alerts for update",
      "create table stolen as select 1",
      "select 1; drop table alerts",
      "select dbmon_grant_datastore_reader()",
      // The attacks of issue 23: a -- comment ends at a carriage return, as PostgreSQL reads it.
      "select 1 --\r, set_config('role', 'none', true)",
      "show search_path --\r; set transaction read write; reset role; update users set is_superuser = true",
      "select 1 --\r; select pg_read_file('/etc/passwd')",
    ];
    for (const query of attempts) {
      const result = await run(query);
      expect(result.error, query).toBe(true);
      expect(result.text, query).toMatch(/^(Refused|Query error)/);
    }
    expect((await admin`select count(*)::int as n from users where is_superuser`)[0]?.n).toBe(1);
    // Behind the lexer, the transaction itself is READ ONLY.
    expect((await run("show transaction_read_only")).text).toBe("transaction_read_only\non\n(1 row)");
    expect((await run("select current_user")).text).toContain(DATASTORE_READER_ROLE);
  });

  it("logs in as its own role: even a statement the parser let through cannot return to the owner's rights", async () => {
    const [template] = await parseSql("select 1");
    const smuggled = (text: string) => ({ ...(template as NonNullable<typeof template>), text });
    const [switched] = await t.services.datastoreReader.run(root.id, [
      smuggled("select set_config('role', 'none', true), current_user, session_user"),
    ]);
    expect(switched?.error).toBeUndefined();
    expect(switched?.rows).toEqual([["none", DATASTORE_READER_ROLE, DATASTORE_READER_ROLE]]);
    const [hashes] = await t.services.datastoreReader.run(root.id, [
      smuggled("select password_hash from users"),
    ]);
    expect(hashes?.error).toMatch(/permission denied for table users/);
    const [write] = await t.services.datastoreReader.run(root.id, [
      smuggled("update users set is_superuser = true"),
    ]);
    expect(write?.error).toMatch(/cannot execute UPDATE in a read-only transaction/);
  });

  it("applies the execution core's row limit, paging, value cap and deadline", async () => {
    const many = await run("select g from generate_series(1, 1500) g", { limit: 1000 });
    const lines = many.text.split("\n");
    expect(lines).toHaveLength(1003);
    expect(lines.slice(-3)).toEqual([
      "1000",
      "(1000 rows; more rows exist: raise offset or limit)",
      "Result truncated: only the first 1001 rows are shown",
    ]);
    expect((await run("select g from generate_series(1, 5) g", { limit: 2, offset: 3 })).text).toBe(
      "g\n4\n5\n(2 rows from offset 3)",
    );
    expect((await call(granted.token, { query: "select 1", limit: 1001 })).isError).toBe(true);
    const wide = await run("select repeat('x', 300000) as big");
    expect(wide.text).toContain("values longer than 262144 bytes are cut");
    const slow = await t.services.datastoreReader.run(root.id, await parseSql("select pg_sleep(20)"), {
      deadlineMs: 300,
    });
    expect(slow[0]?.error).toBe("Query error: stopped after the 0.3 s time limit");
  });

  it("needs the query_datastore privilege, superusers' scoped tokens included", async () => {
    expect(await call(plain.token, { query: "select 1" })).toEqual({
      content: [
        { type: "text", text: "Access denied: you do not have permission to use tool 'query_datastore'" },
      ],
      isError: true,
    });
    expect((await call(root.token, { query: "select 1" })).isError).toBeUndefined();
  });

  it("needs access to every connection, since it reads the history of all of them", async () => {
    const hidden = await registerTestServer(t, root.token, "hidden");
    try {
      expect(await call(granted.token, { query: "select 1" })).toEqual({
        content: [
          {
            type: "text",
            text: "Access denied: query_datastore reads the history of every connection, and some are hidden from you",
          },
        ],
        isError: true,
      });
      expect((await call(root.token, { query: "select 1" })).isError).toBeUndefined();
    } finally {
      const deleted = await requestJson(t.app, `/api/v1/connections/${hidden}`, {
        method: "DELETE",
        token: root.token,
      });
      expect(deleted.status).toBe(204);
    }
    expect((await call(granted.token, { query: "select 1" })).isError).toBeUndefined();
  });

  describe("refuses rather than run unrestricted", () => {
    let other: Datastore | undefined;
    afterAll(async () => other?.close());
    const readerFor = (role: string, options: { datastore?: Datastore; password?: string } = {}) =>
      new DatastoreReader({
        datastore: options.datastore ?? t.datastore,
        sql: t.services.sql,
        secretKey: t.services.secretKey,
        role,
        ...(options.password !== undefined ? { password: options.password } : {}),
      });
    const select1 = () => parseSql("select 1");

    it("when the role does not exist (a datastore user without CREATEROLE)", async () => {
      await expect(readerFor(`dbmon_missing_${suffix}`).run(root.id, await select1())).rejects.toThrow(
        `query_datastore is not available: the datastore has no dbmon_missing_${suffix} role`,
      );
    });

    it("when the role cannot log in and the datastore user may not make it", async () => {
      const login = `dbmon_plain_login_${suffix}`;
      const nologin = `dbmon_nologin_${suffix}`;
      extraRoles.push(login, nologin);
      const password = randomBytes(12).toString("hex");
      await admin.unsafe(`create role "${login}" login nocreaterole password '${password}'`);
      await admin.unsafe(`create role "${nologin}" nologin`);
      const url = new URL(t.database.url);
      url.username = login;
      url.password = password;
      other = await openDatastore({
        databaseUrl: url.toString(),
        dataDir: "",
        migrate: false,
        maxConnections: 1,
      });
      await expect(readerFor(nologin, { datastore: other }).run(root.id, await select1())).rejects.toThrow(
        `query_datastore is not available: the ${nologin} role cannot log in`,
      );
    });

    it("when the role can read secrets (an operator's role, which dbmon does not change)", async () => {
      const wide = `dbmon_wide_reader_${suffix}`;
      extraRoles.push(wide);
      await admin.unsafe(`create role "${wide}" login`);
      await admin.unsafe(`grant select on users, sessions to "${wide}"`);
      const reader = readerFor(wide, { password: "set-by-the-operator" });
      await expect(reader.run(root.id, await select1())).rejects.toThrow(
        `the ${wide} role can read secrets (users.password_hash, users.email, sessions)`,
      );
      await admin.unsafe(`revoke select on users, sessions from "${wide}"`);
      await admin.unsafe(`grant pg_read_all_data to "${wide}"`);
      await expect(reader.run(root.id, await select1())).rejects.toThrow(
        /can read secrets \(membership of pg_read_all_data, users\.password_hash/,
      );
    });

    it("when the role belongs to the owner's role, unless dbmon administers it (then the membership goes)", async () => {
      const member = `dbmon_member_reader_${suffix}`;
      extraRoles.push(member);
      await admin.unsafe(`create role "${member}" nologin`);
      const owner = decodeURIComponent(new URL(t.database.url).username);
      await admin.unsafe(`grant "${owner}" to "${member}"`);
      await expect(
        readerFor(member, { password: "set-by-the-operator" }).run(root.id, await select1()),
      ).rejects.toThrow(`the ${member} role cannot log in`);
      const [result] = await readerFor(member).run(root.id, await select1());
      expect(result?.rows).toEqual([["1"]]);
      const memberships = await admin`
        select count(*)::int as n from pg_auth_members m join pg_roles r on r.oid = m.member
         where r.rolname = ${member}`;
      expect(memberships[0]?.n).toBe(0);
    });
  });
});
