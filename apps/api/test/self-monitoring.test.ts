import { randomBytes } from "node:crypto";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMonitorRole } from "../src/connections/self-monitoring.js";

describe("the self connection's role", () => {
  // Roles are global to a server that other test files share: a name of this run's own.
  const role = `dbmon_monitor_test_${randomBytes(4).toString("hex")}`;
  let database: TestDatabase;
  let superuser: postgres.Sql;
  let monitor: postgres.Sql;

  beforeAll(async () => {
    database = await createTestDatabase();
    superuser = postgres(database.url, { max: 1, onnotice: () => {} });
    await ensureMonitorRole(superuser, role, "first-password-0123456789");
    // A second start resets it: idempotent, and it drops anything granted to it meanwhile.
    await superuser.unsafe(`grant pg_write_server_files, pg_signal_backend to ${role}`);
    await ensureMonitorRole(superuser, role, "second-password-0123456789");
    const url = new URL(database.url);
    url.username = role;
    url.password = "second-password-0123456789";
    monitor = postgres(url.toString(), { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await monitor?.end();
    await superuser.end();
    await database.drop();
    const cleanup = postgres(database.url.replace(`/${database.name}`, "/postgres"), { max: 1 });
    await cleanup.unsafe(`drop role if exists ${role}`);
    await cleanup.end();
  });

  it("is a plain login role with the monitoring roles only", async () => {
    const [attributes] = await superuser`
      select rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls, rolcanlogin
      from pg_roles where rolname = ${role}`;
    expect(attributes).toEqual({
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolreplication: false,
      rolbypassrls: false,
      rolcanlogin: true,
    });
    const memberships = await superuser`
      select g.rolname from pg_auth_members m join pg_roles g on g.oid = m.roleid
      where m.member = (select oid from pg_roles where rolname = ${role}) order by 1`;
    expect(memberships.map((row) => row.rolname)).toEqual([
      "pg_monitor",
      "pg_read_all_settings",
      "pg_read_all_stats",
    ]);
    const [stored] = await superuser`select rolpassword from pg_authid where rolname = ${role}`;
    expect(stored?.rolpassword).toMatch(/^SCRAM-SHA-256\$4096:/);
  });

  it("has no right on any of dbmon's tables", async () => {
    const granted = await superuser`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'p', 'v', 'm', 'S')
        and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'
        and (has_table_privilege(${role}, c.oid, 'select') or has_table_privilege(${role}, c.oid, 'insert')
          or has_table_privilege(${role}, c.oid, 'update') or has_table_privilege(${role}, c.oid, 'delete'))`;
    expect(granted).toEqual([]);
    const [{ tables }] = (await superuser`
      select count(*)::int as tables from pg_tables where tablename in ('users', 'sessions', 'connections')`) as unknown as [
      { tables: number },
    ];
    expect(tables).toBe(3);
  });

  it("reads statistics but not dbmon's data, server files or other backends", async () => {
    const [activity] = await monitor`select count(*)::int as n from pg_stat_activity where query is not null`;
    expect(activity?.n).toBeGreaterThan(0);
    // The authentication rules the collector's probes read: refused to it, `local` warned on every start.
    const [rules] = await monitor`select count(*)::int as n from pg_hba_file_rules`;
    expect(rules?.n).toBeGreaterThan(0);
    await monitor`select * from pg_ident_file_mappings`;
    await expect(monitor`select * from users`).rejects.toThrow(/permission denied/);
    await expect(monitor`update users set is_superuser = true`).rejects.toThrow(/permission denied/);
    await expect(monitor`select pg_read_file('postgresql.conf')`).rejects.toThrow(/permission denied/);
    await expect(monitor`copy (select 1) to program 'true'`).rejects.toThrow(
      /permission denied|must be superuser/,
    );
    const [{ pid }] = (await superuser`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
    await expect(monitor`select pg_terminate_backend(${pid})`).rejects.toThrow(
      /permission denied|must be a/i,
    );
  });
});
