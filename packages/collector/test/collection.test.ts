import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { KEY_SETTING_NAMES, readServerInfo, type ServerInfo } from "@dbmon/datastore";
import { machinePostgresAvailable } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { cpu, fsSize, mem, osInfo } from "systeminformation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLLECTOR_APPLICATION_NAME, type RunningCollector, startCollector } from "../src/index.js";
import {
  createMonitoredDatabase,
  insertConnection,
  MONITORED_SERVER_URL,
  type MonitoredDatabase,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

// Monitors the machine's PostgreSQL 15 (CI has it); a machine with only Node.js skips this file.
const machinePostgres = await machinePostgresAvailable();

describe.skipIf(!machinePostgres)("collection from PostgreSQL 15 on this host", () => {
  let env: TestEnvironment;
  let monitored: MonitoredDatabase;
  let live: postgres.Sql;
  let collector: RunningCollector;
  let connectionId: number;
  let startedAt: number;

  beforeAll(async () => {
    env = await openTestEnvironment();
    monitored = await createMonitoredDatabase(MONITORED_SERVER_URL, (sql) => sql`create extension pg_trgm`);
    live = postgres(monitored.url, { max: 1, onnotice: () => {} });
    connectionId = await insertConnection(env, { database_name: monitored.name });
    startedAt = Date.now();
    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      // Database-scoped probes visit every database of this shared server: keep them at their default
      // interval (one run at start) so as not to sit in other people's databases.
      intervalOverrides: { pg_connectivity: 1, pg_settings: 1, pg_server_info: 1 },
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await live?.end();
    await monitored?.drop();
    await env?.close();
  });

  async function collectedInfo(): Promise<ServerInfo> {
    return waitFor("a full collection", async () => {
      const info = await readServerInfo(env.datastore, connectionId);
      const complete =
        info?.system.disks.length &&
        info.system.os_name !== null &&
        info.system.cpu_model !== null &&
        info.system.memory_total_bytes !== null &&
        info.dbserver.version !== null &&
        info.databases.length &&
        info.key_settings.length &&
        info.extensions.some((extension) => extension.database === monitored.name);
      return complete ? info : undefined;
    });
  }

  it("answers server information that matches the live server and host, field by field", async () => {
    const info = await collectedInfo();
    expect(Object.keys(info)).toEqual([
      "connection_id",
      "collected_at",
      "system",
      "dbserver",
      "databases",
      "extensions",
      "key_settings",
    ]);
    expect(info.connection_id).toBe(connectionId);
    expect(info.collected_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(info.collected_at ?? "")).toBeGreaterThanOrEqual(startedAt - 1000);

    const [server] = await live<
      {
        version: string;
        cluster_name: string;
        data_directory: string;
        max_connections: number;
        max_wal_senders: number;
        max_replication_slots: number;
      }[]
    >`select current_setting('server_version') as version, current_setting('cluster_name') as cluster_name,
        current_setting('data_directory') as data_directory,
        current_setting('max_connections')::int as max_connections,
        current_setting('max_wal_senders')::int as max_wal_senders,
        current_setting('max_replication_slots')::int as max_replication_slots`;
    expect(info.dbserver).toEqual(server);

    // The host: the server is on 127.0.0.1 and has no system_stats, so this host's own figures.
    const [os, processor, memory, volumes] = await Promise.all([osInfo(), cpu(), mem(), fsSize()]);
    const { system } = info;
    expect(system.os_name).toBe(os.distro);
    expect(system.os_version).toContain(os.release);
    expect(system.architecture).toBe(os.arch);
    expect(system.hostname).toBe(hostname());
    expect(system.cpu_model).toContain(processor.brand);
    expect(system.cpu_cores).toBe(processor.physicalCores);
    expect(system.cpu_logical).toBe(processor.cores);
    // In hertz; where systeminformation knows no speed (virtual machines), the kernel's `cpu MHz`.
    const reportedGhz = processor.speedMax || processor.speed;
    const kernelMhz = Math.max(
      0,
      ...(await readFile("/proc/cpuinfo", "utf8").catch(() => ""))
        .split("\n")
        .filter((line) => /^cpu MHz\s*:/.test(line))
        .map((line) => Number(line.split(":")[1])),
    );
    if (reportedGhz > 0) {
      expect(system.cpu_clock_speed).toBe(Math.round(reportedGhz * 1e9));
    } else if (kernelMhz > 0) {
      expect(system.cpu_clock_speed).toBe(Math.round(kernelMhz * 1e6));
    }
    expect(system.memory_total_bytes).toBe(memory.total);
    expect(system.swap_total_bytes).toBe(memory.swaptotal);
    for (const value of [system.memory_used_bytes, system.memory_free_bytes, system.swap_used_bytes]) {
      expect(Number.isInteger(value)).toBe(true);
    }
    expect((system.memory_used_bytes ?? 0) + (system.memory_free_bytes ?? 0)).toBe(memory.total);
    expect(system.disks.map((disk) => disk.mount_point)).toEqual(
      volumes.map((volume) => volume.mount).sort((a, b) => (a < b ? -1 : 1)),
    );
    for (const disk of system.disks) {
      expect(Object.keys(disk)).toEqual([
        "mount_point",
        "filesystem_type",
        "total_bytes",
        "used_bytes",
        "free_bytes",
      ]);
      const volume = volumes.find((candidate) => candidate.mount === disk.mount_point);
      expect(disk.filesystem_type).toBe(volume?.type);
      expect(disk.total_bytes).toBe(volume?.size);
      expect(Number.isInteger(disk.used_bytes) && Number.isInteger(disk.free_bytes)).toBe(true);
    }

    // Databases: sorted by name, no templates, the monitored one as the server describes it.
    const names = info.databases.map((database) => database.name);
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain("template0");
    expect(names).not.toContain("template1");
    expect(names).toContain("postgres");
    const [ours] = await live<{ size: number; encoding: string; limit: number }[]>`
      select pg_database_size(datname)::float8 as size, pg_encoding_to_char(encoding) as encoding,
        datconnlimit as limit
      from pg_database where datname = current_database()`;
    const liveExtensions = await live<{ name: string; version: string; schema: string }[]>`
      select extname::text as name, extversion as version, extnamespace::regnamespace::text as schema
      from pg_extension order by extname`;
    const database = info.databases.find((candidate) => candidate.name === monitored.name);
    expect(database).toEqual({
      name: monitored.name,
      size_bytes: ours?.size,
      encoding: ours?.encoding,
      connection_limit: ours?.limit,
      extensions: liveExtensions.map((extension) => extension.name),
    });
    expect(database?.extensions).toContain("pg_trgm");

    expect(info.extensions.filter((extension) => extension.database === monitored.name)).toEqual(
      liveExtensions.map((extension) => ({ ...extension, database: monitored.name })),
    );
    const order = info.extensions.map((extension) => [extension.database, extension.name].join("\u0000"));
    expect(order).toEqual([...order].sort());

    const settings = await live<{ name: string; setting: string; unit: string | null; category: string }[]>`
      select name, setting, unit, category from pg_settings where name = any(${[...KEY_SETTING_NAMES]})
      order by category collate "C", name collate "C"`;
    expect(info.key_settings).toHaveLength(16);
    expect(info.key_settings).toEqual(
      settings.map(({ unit, ...setting }) => (unit ? { ...setting, unit } : setting)),
    );
    const autovacuum = info.key_settings.find((setting) => setting.name === "autovacuum");
    expect(autovacuum && "unit" in autovacuum).toBe(false);
    expect(info.key_settings.find((setting) => setting.name === "shared_buffers")?.unit).toBe("8kB");
  });

  it("stores a configuration snapshot only when its content changes", async () => {
    await collectedInfo();
    const snapshots = async (probe: string) => {
      const [row] = await env.datastore.sql.unsafe(
        `select count(distinct collected_at)::int as n from metrics."${probe}" where connection_id = $1`,
        [connectionId],
      );
      return Number(row?.n);
    };
    const lastRun = async (probe: string) => {
      const [row] = await env.datastore.sql`
        select (extract(epoch from last_run_at) * 1000)::float8 as at from probe_runs
        where connection_id = ${connectionId} and probe_name = ${probe}`;
      return Number(row?.at);
    };
    // Several one-second runs of each, one stored snapshot each: the server's settings do not change.
    const before = { settings: await lastRun("pg_settings"), server: await lastRun("pg_server_info") };
    await waitFor("two more runs", async () =>
      (await lastRun("pg_settings")) >= before.settings + 2000 &&
      (await lastRun("pg_server_info")) >= before.server + 2000
        ? true
        : undefined,
    );
    expect(await snapshots("pg_settings")).toBe(1);
    expect(await snapshots("pg_server_info")).toBe(1);
  });

  it("tags its sessions and queries", async () => {
    await collectedInfo();
    const sessions = await waitFor("a collector session", async () => {
      const found = await live<{ application_name: string; query: string }[]>`
        select application_name, query from pg_stat_activity
        where application_name = ${COLLECTOR_APPLICATION_NAME} and query <> ''`;
      return found.length > 0 ? found : undefined;
    });
    for (const session of sessions) {
      expect(session.query).toMatch(/^\/\* dbmon collector: \w+ \*\//);
    }
  });
});
