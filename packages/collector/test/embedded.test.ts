import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type EmbeddedServer,
  encryptSecret,
  readServerInfo,
  silentLogger,
  startEmbeddedServer,
} from "@dbmon/datastore";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CollectorLogger,
  type ProbeDefinition,
  probeRegistry,
  type RunningCollector,
  startCollector,
} from "../src/index.js";
import {
  createMonitoredDatabase,
  insertConnection,
  type MonitoredDatabase,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

// Functions with the names and result columns of the system_stats extension, standing in for it.
const SYSTEM_STATS_STAND_IN = [
  "create schema system_stats",
  `create function system_stats.pg_sys_os_info(out name text, out version text, out host_name text,
     out domain_name text, out handle_count int, out process_count int, out thread_count int,
     out architecture text, out last_bootup_time text, out os_up_since_seconds int)
   language sql as $$ select 'Stand-in Linux 12', '6.1.0-28-amd64', 'db-host-7', 'example.net', 0, 212, 540,
     'aarch64', '2026-11-01 10:00:00', 86400 $$`,
  `create function system_stats.pg_sys_cpu_info(out vendor text, out description text, out model_name text,
     out processor_type int, out logical_processor int, out physical_processor int, out no_of_cores int,
     out architecture text, out clock_speed_hz bigint, out cpu_type text, out cpu_family text,
     out byte_order text, out l1dcache_size int, out l1icache_size int, out l2cache_size int,
     out l3cache_size int)
   language sql as $$ select 'ARM', 'Neoverse', 'Neoverse-N1 r3p1', 0, 16, 1, 8, 'aarch64', 3000000000::bigint,
     'ARMv8', '8', 'Little Endian', 64, 64, 1024, 32768 $$`,
  `create function system_stats.pg_sys_memory_info(out total_memory bigint, out used_memory bigint,
     out free_memory bigint, out swap_total bigint, out swap_used bigint, out swap_free bigint,
     out cache_total bigint, out kernel_total bigint, out kernel_paged bigint, out kernel_non_paged bigint,
     out total_page_file bigint, out avail_page_file bigint)
   language sql as $$ select 68719476736, 17179869184, 51539607552, 8589934592, 1073741824, 7516192768,
     4294967296, 0, 0, 0, 0, 0 $$`,
  `create function system_stats.pg_sys_disk_info(out mount_point text, out file_system text,
     out drive_letter text, out drive_type int, out file_system_type text, out total_space bigint,
     out used_space bigint, out free_space bigint, out total_inodes bigint, out used_inodes bigint,
     out free_inodes bigint)
   returns setof record
   language sql as $$ values
     ('/var/lib/postgresql', '/dev/nvme1n1', null::text, 0, 'xfs', 2000000000000::bigint, 500000000000::bigint,
       1500000000000::bigint, 1000::bigint, 10::bigint, 990::bigint),
     ('/', '/dev/nvme0n1p1', null, 0, 'ext4', 100000000000, 40000000000, 60000000000, 1000, 100, 900) $$`,
];

/** Database-scoped probes that record how many sessions their role has open on the server. */
function sessionCountingProbes(count: number): ProbeDefinition[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `session_count_${index}`,
    scope: "database" as const,
    intervalSeconds: 0.2,
    retentionDays: 1,
    snapshot: false,
    columns: [{ name: "sessions", type: "integer" as const }],
    queries: [
      {
        minVersion: 0,
        sql: `select (select count(*)::int from pg_stat_activity where usename = current_user) as sessions
              from pg_sleep(0.05)`,
      },
    ],
  }));
}

const slowProbe: ProbeDefinition = {
  name: "slow_probe",
  scope: "server",
  intervalSeconds: 60,
  retentionDays: 1,
  snapshot: false,
  columns: [{ name: "slept", type: "text" }],
  queries: [{ minVersion: 0, sql: "select pg_sleep(5)::text as slept" }],
};

// One PostgreSQL 18 server for the whole file: it is this file's own, so probes may visit every
// database of it as often as they like.
let dataDir: string;
let server: EmbeddedServer;
let password: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "dbmon-collector-pg18-"));
  server = await startEmbeddedServer({ dataDir, port: 0, logger: silentLogger });
  password = decodeURIComponent(new URL(server.url).password);
});

afterAll(async () => {
  await server?.stop();
  if (dataDir) {
    await rm(dataDir, { recursive: true, force: true });
  }
});

describe("collection from the embedded PostgreSQL 18", () => {
  let env: TestEnvironment;
  let monitored: MonitoredDatabase;
  let collector: RunningCollector;

  beforeAll(async () => {
    env = await openTestEnvironment();
    monitored = await createMonitoredDatabase(server.url, async (sql) => {
      for (const statement of SYSTEM_STATS_STAND_IN) {
        await sql.unsafe(statement);
      }
    });
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      backoffInitialSeconds: 0.5,
      backoffMaxSeconds: 1,
      intervalOverrides: { pg_connectivity: 0.5, pg_extension: 0.5 },
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await monitored?.drop();
    await env?.close();
  });

  it("collects PostgreSQL 18 and takes host figures from system_stats", async () => {
    const connectionId = await insertConnection(env, {
      host: "127.0.0.1",
      port: server.port,
      username: "dbmon",
      password,
      database_name: monitored.name,
    });
    const info = await waitFor("a full collection", async () => {
      const current = await readServerInfo(env.datastore, connectionId);
      const complete =
        current?.host.disks.length &&
        current.host.osName &&
        current.host.cpuModel &&
        current.host.memoryTotalBytes &&
        current.server.version &&
        current.databases.some((database) => database.name === monitored.name) &&
        current.keySettings.length;
      return complete ? current : undefined;
    });
    expect(info.server.version).toMatch(/^18\./);
    expect(info.server.maxConnections).toEqual(expect.any(Number));
    expect(info.keySettings).toHaveLength(16);
    expect(info.databases.map((database) => database.name)).toEqual(
      expect.arrayContaining(["postgres", monitored.name]),
    );
    // Although the server is on this host, system_stats wins (D6).
    expect(info.host).toEqual({
      osName: "Stand-in Linux 12",
      osVersion: "6.1.0-28-amd64",
      architecture: "aarch64",
      hostname: "db-host-7",
      cpuModel: "Neoverse-N1 r3p1",
      cpuCores: 8,
      cpuLogicalProcessors: 16,
      cpuClockSpeedHz: 3000000000,
      memoryTotalBytes: 68719476736,
      memoryUsedBytes: 17179869184,
      memoryFreeBytes: 51539607552,
      swapTotalBytes: 8589934592,
      swapUsedBytes: 1073741824,
      disks: [
        {
          mountPoint: "/",
          filesystemType: "ext4",
          totalBytes: 100000000000,
          usedBytes: 40000000000,
          freeBytes: 60000000000,
        },
        {
          mountPoint: "/var/lib/postgresql",
          filesystemType: "xfs",
          totalBytes: 2000000000000,
          usedBytes: 500000000000,
          freeBytes: 1500000000000,
        },
      ],
    });
  });

  it("records a refused password without revealing it, and reconnects after a password change", async () => {
    const wrong = "Wrong-Pa55word-9f3b";
    const connectionId = await insertConnection(env, {
      name: "wrong password",
      port: server.port,
      username: "dbmon",
      password: wrong,
      database_name: "postgres",
    });
    const error = await waitFor("the connection error", async () => {
      const [row] = await env.datastore.sql<{ connection_error: string | null }[]>`
        select connection_error from connections where id = ${connectionId}`;
      return row?.connection_error ?? undefined;
    });
    expect(error).toMatch(/^connection error: password authentication failed for user "dbmon"/);
    expect(error).not.toContain(wrong);

    const changedAt = Date.now();
    await env.datastore.sql`
      update connections set password_encrypted = ${encryptSecret(env.secretKey, password)}
      where id = ${connectionId}`;
    await waitFor("the error cleared", async () => {
      const [row] = await env.datastore.sql<{ connection_error: string | null }[]>`
        select connection_error from connections where id = ${connectionId}`;
      return row?.connection_error === null ? true : undefined;
    });
    // A probe of its own database: the server-wide ones are stored by the server's representative,
    // another connection with other credentials.
    await waitFor("collection after the change", async () => {
      const [fresh] = await env.datastore.sql<{ n: number }[]>`
        select count(*)::int as n from metrics.pg_stat_database
        where connection_id = ${connectionId} and collected_at >= ${new Date(changedAt).toISOString()}::timestamptz`;
      return fresh?.n ? true : undefined;
    });
  });

  it("stores a new pg_extension snapshot when an extension is created, and only then", async () => {
    const connectionId = await insertConnection(env, {
      name: "extensions",
      port: server.port,
      username: "dbmon",
      password,
      database_name: monitored.name,
    });
    const snapshots = async () => {
      const [row] = await env.datastore.sql<{ n: number }[]>`
        select count(distinct collected_at)::int as n from metrics.pg_extension
        where connection_id = ${connectionId}`;
      return row?.n ?? 0;
    };
    const lastRun = async () => {
      const [row] = await env.datastore.sql<{ at: number }[]>`
        select (extract(epoch from last_run_at) * 1000)::float8 as at from probe_runs
        where connection_id = ${connectionId} and probe_name = 'pg_extension'`;
      return row?.at ?? 0;
    };
    await waitFor("a first snapshot", async () => ((await snapshots()) === 1 ? true : undefined));
    const firstRun = await lastRun();
    await waitFor("three more runs", async () => ((await lastRun()) >= firstRun + 1400 ? true : undefined));
    expect(await snapshots()).toBe(1);

    const sql = postgres(monitored.url, { max: 1, onnotice: () => {} });
    await sql`create extension hstore`;
    await sql.end();
    const info = await waitFor("a snapshot with hstore", async () => {
      const current = await readServerInfo(env.datastore, connectionId);
      return current?.extensions.some((extension) => extension.name === "hstore") ? current : undefined;
    });
    expect(await snapshots()).toBe(2);
    expect(info.databases.find((database) => database.name === monitored.name)?.extensions).toEqual([
      "hstore",
      "plpgsql",
    ]);
    expect(info.extensions).toContainEqual({
      name: "hstore",
      version: expect.any(String),
      schema: "public",
      database: monitored.name,
    });
  });
});

describe("sessions on a monitored server", () => {
  let env: TestEnvironment;
  let admin: postgres.Sql;
  const role = "dbmon_limited";
  const rolePassword = "Limited-Pa55";
  const collectors: RunningCollector[] = [];
  const warnings: string[] = [];
  const logger: CollectorLogger = {
    debug() {},
    info() {},
    warn(obj, msg) {
      warnings.push(`${msg}: ${JSON.stringify(obj)}`);
    },
    error() {},
  };

  beforeAll(async () => {
    env = await openTestEnvironment();
    admin = postgres(server.url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create role "${role}" login password '${rolePassword}'`);
    // Some databases for the database-scoped probes to go through.
    for (const name of ["alpha", "beta", "gamma"]) {
      await admin.unsafe(`create database "${name}"`);
    }
  });

  afterAll(async () => {
    await Promise.all(collectors.map((collector) => collector.stop()));
    await admin?.end();
    await env?.close();
  });

  it("never opens more than 3 sessions on one server, over all its databases", async () => {
    const probes = sessionCountingProbes(5);
    const id = await insertConnection(env, {
      name: "limited",
      port: server.port,
      username: role,
      password: rolePassword,
      database_name: "postgres",
    });
    collectors.push(
      await startCollector({ datastore: env.datastore, logger, secretKey: env.secretKey, probes }),
    );
    const counts = await waitFor(
      "many concurrent runs",
      async () => {
        const rows = await env.datastore.sql.unsafe(
          probes
            .map((probe) => `select sessions from metrics."${probe.name}" where connection_id = $1`)
            .join(" union all "),
          [id],
        );
        return rows.length >= 100 ? rows.map((row) => Number(row.sessions)) : undefined;
      },
      20_000,
    );
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    expect(Math.max(...counts)).toBeGreaterThanOrEqual(2);
  });

  it("ends a run at its time limit, on the server as well", async () => {
    await Promise.all(collectors.splice(0).map((collector) => collector.stop()));
    const id = await insertConnection(env, {
      name: "slow",
      port: server.port,
      username: role,
      password: rolePassword,
      database_name: "postgres",
    });
    await env.datastore.sql`update connections set is_monitored = false where id <> ${id}`;
    collectors.push(
      await startCollector({
        datastore: env.datastore,
        logger,
        secretKey: env.secretKey,
        probes: [slowProbe, ...probeRegistry.filter((probe) => probe.name === "pg_connectivity")],
        runTimeoutSeconds: 1,
      }),
    );
    await waitFor("the timeout", async () =>
      warnings.some(
        (warning) => warning.startsWith("probe run timed out") && warning.includes(`"connectionId":${id}`),
      )
        ? true
        : undefined,
    );
    await waitFor(
      "the server to stop the query",
      async () => {
        const running = await admin`
          select 1 from pg_stat_activity where usename = ${role} and state = 'active' and query like '%pg_sleep(5)%'`;
        return running.length === 0 ? true : undefined;
      },
      3_000,
    );
    const [stored] = await env.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metrics.slow_probe where connection_id = ${id}`;
    expect(stored?.n).toBe(0);
    // The connection itself is fine: a slow probe is not a connection error.
    const [row] = await env.datastore.sql<{ connection_error: string | null }[]>`
      select connection_error from connections where id = ${id}`;
    expect(row?.connection_error).toBeNull();
  });
});
