import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import { type CollectedServerInfo, KEY_SETTING_NAMES, readServerInfo } from "@dbmon/datastore";
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

  async function collectedInfo(): Promise<CollectedServerInfo> {
    return waitFor("a full collection", async () => {
      const info = await readServerInfo(env.datastore, connectionId);
      const complete =
        info?.host.disks.length &&
        info.host.osName !== null &&
        info.host.cpuModel !== null &&
        info.host.memoryTotalBytes !== null &&
        info.server.version !== null &&
        info.databases.length &&
        info.keySettings.length &&
        info.extensions.some((extension) => extension.database === monitored.name);
      return complete ? info : undefined;
    });
  }

  it("answers server information that matches the live server and host, field by field", async () => {
    const info = await collectedInfo();
    expect(Object.keys(info)).toEqual([
      "connectionId",
      "collectedAt",
      "host",
      "server",
      "databases",
      "extensions",
      "keySettings",
    ]);
    expect(info.connectionId).toBe(connectionId);
    expect(info.collectedAt).toBeInstanceOf(Date);
    expect(info.collectedAt?.getTime()).toBeGreaterThanOrEqual(startedAt - 1000);

    const [server] = await live<
      {
        version: string;
        clusterName: string;
        dataDirectory: string;
        maxConnections: number;
        maxWalSenders: number;
        maxReplicationSlots: number;
      }[]
    >`select current_setting('server_version') as version, current_setting('cluster_name') as "clusterName",
        current_setting('data_directory') as "dataDirectory",
        current_setting('max_connections')::int as "maxConnections",
        current_setting('max_wal_senders')::int as "maxWalSenders",
        current_setting('max_replication_slots')::int as "maxReplicationSlots"`;
    expect(info.server).toEqual(server);

    // The host: the server is on 127.0.0.1 and has no system_stats, so this host's own figures.
    const [os, processor, memory, volumes] = await Promise.all([osInfo(), cpu(), mem(), fsSize()]);
    const { host } = info;
    expect(host.osName).toBe(os.distro);
    expect(host.osVersion).toContain(os.release);
    expect(host.architecture).toBe(os.arch);
    expect(host.hostname).toBe(hostname());
    expect(host.cpuModel).toContain(processor.brand);
    expect(host.cpuCores).toBe(processor.physicalCores);
    expect(host.cpuLogicalProcessors).toBe(processor.cores);
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
      expect(host.cpuClockSpeedHz).toBe(Math.round(reportedGhz * 1e9));
    } else if (kernelMhz > 0) {
      expect(host.cpuClockSpeedHz).toBe(Math.round(kernelMhz * 1e6));
    }
    expect(host.memoryTotalBytes).toBe(memory.total);
    expect(host.swapTotalBytes).toBe(memory.swaptotal);
    for (const value of [host.memoryUsedBytes, host.memoryFreeBytes, host.swapUsedBytes]) {
      expect(Number.isInteger(value)).toBe(true);
    }
    expect((host.memoryUsedBytes ?? 0) + (host.memoryFreeBytes ?? 0)).toBe(memory.total);
    expect(host.disks.map((disk) => disk.mountPoint)).toEqual(
      volumes.map((volume) => volume.mount).sort((a, b) => (a < b ? -1 : 1)),
    );
    for (const disk of host.disks) {
      expect(Object.keys(disk)).toEqual([
        "mountPoint",
        "filesystemType",
        "totalBytes",
        "usedBytes",
        "freeBytes",
      ]);
      const volume = volumes.find((candidate) => candidate.mount === disk.mountPoint);
      expect(disk.filesystemType).toBe(volume?.type);
      expect(disk.totalBytes).toBe(volume?.size);
      expect(Number.isInteger(disk.usedBytes) && Number.isInteger(disk.freeBytes)).toBe(true);
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
      sizeBytes: ours?.size,
      encoding: ours?.encoding,
      connectionLimit: ours?.limit,
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
    expect(info.keySettings).toHaveLength(16);
    expect(info.keySettings).toEqual(
      settings.map(({ unit, ...setting }) => ({ ...setting, unit: unit || null })),
    );
    const autovacuum = info.keySettings.find((setting) => setting.name === "autovacuum");
    expect(autovacuum?.unit).toBeNull();
    expect(info.keySettings.find((setting) => setting.name === "shared_buffers")?.unit).toBe("8kB");
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
