import type { Sql } from "../datastore.js";
import { databaseSources, readsDatabaseRow, serverRowsConnection } from "./database-ownership.js";

/**
 * What dbmon last collected about a monitored server (spec, "Server information"), from collected
 * data only; the API presents it on the wire.
 */
export interface CollectedServerInfo {
  connectionId: number;
  /** The newest collection among the probes read; null before any. */
  collectedAt: Date | null;
  host: CollectedHost;
  server: CollectedServer;
  /** Databases of the server, templates left out, in byte order of their names. */
  databases: CollectedDatabase[];
  extensions: CollectedExtension[];
  /** The settings of `KEY_SETTING_NAMES` that were collected. */
  keySettings: CollectedSetting[];
}

/** The machine the server runs on. */
export interface CollectedHost {
  osName: string | null;
  osVersion: string | null;
  architecture: string | null;
  hostname: string | null;
  cpuModel: string | null;
  cpuCores: number | null;
  cpuLogicalProcessors: number | null;
  cpuClockSpeedHz: number | null;
  memoryTotalBytes: number | null;
  memoryUsedBytes: number | null;
  memoryFreeBytes: number | null;
  swapTotalBytes: number | null;
  swapUsedBytes: number | null;
  disks: CollectedDisk[];
}

export interface CollectedDisk {
  mountPoint: string;
  filesystemType: string | null;
  totalBytes: number | null;
  usedBytes: number | null;
  freeBytes: number | null;
}

/** The PostgreSQL server itself. */
export interface CollectedServer {
  version: string | null;
  clusterName: string | null;
  dataDirectory: string | null;
  maxConnections: number | null;
  maxWalSenders: number | null;
  maxReplicationSlots: number | null;
}

export interface CollectedDatabase {
  name: string;
  sizeBytes: number | null;
  encoding: string | null;
  connectionLimit: number | null;
  /** Names of the extensions installed in the database. */
  extensions: string[];
}

export interface CollectedExtension {
  name: string;
  version: string;
  schema: string;
  database: string;
}

export interface CollectedSetting {
  name: string;
  setting: string;
  /** Null when the setting has no unit. */
  unit: string | null;
  category: string;
}

/** The curated settings of `key_settings` (spec: exactly these 16). */
export const KEY_SETTING_NAMES = [
  "shared_buffers",
  "work_mem",
  "effective_cache_size",
  "maintenance_work_mem",
  "max_worker_processes",
  "wal_level",
  "archive_mode",
  "max_wal_size",
  "min_wal_size",
  "checkpoint_completion_target",
  "random_page_cost",
  "effective_io_concurrency",
  "max_parallel_workers",
  "max_parallel_workers_per_gather",
  "autovacuum",
  "log_min_duration_statement",
] as const;

const EXCLUDED_DATABASES = ["template0", "template1"];

/** Probes the collector stores only when their content changes (see its probe registry). */
const SNAPSHOT_PROBES = new Set(["pg_server_info", "pg_settings", "pg_extension", "pg_sys_cpu_info"]);

type Timestamped<T> = T & { collected_ms: number };

/**
 * Reads the latest collected data of a connection; null when the connection does not exist. Never queries the monitored server: what was not collected yet is null
 * or [] (D5), including when the collector has not created the metrics tables yet.
 */
export async function readServerInfo(
  datastore: { sql: Sql },
  connectionId: number,
): Promise<CollectedServerInfo | null> {
  const { sql } = datastore;
  const [connection] = await sql`select id from connections where id = ${connectionId}`;
  if (!connection) {
    return null;
  }
  const [os, cpu, memory, disks, server, databases, extensions, settings] = await Promise.all([
    latestRows<{
      name: string | null;
      version: string | null;
      architecture: string | null;
      host_name: string | null;
    }>(
      sql,
      { probe: "pg_sys_os_info", rows: "server" },
      "name, version, architecture, host_name",
      connectionId,
    ),
    latestRows<{
      model_name: string | null;
      no_of_cores: number | null;
      logical_processor: number | null;
      clock_speed_hz: number | null;
    }>(
      sql,
      { probe: "pg_sys_cpu_info", rows: "server" },
      "model_name, no_of_cores, logical_processor, clock_speed_hz::float8 as clock_speed_hz",
      connectionId,
    ),
    latestRows<{
      total_memory: number | null;
      used_memory: number | null;
      free_memory: number | null;
      swap_total: number | null;
      swap_used: number | null;
    }>(
      sql,
      { probe: "pg_sys_memory_info", rows: "server" },
      `total_memory::float8 as total_memory, used_memory::float8 as used_memory,
       free_memory::float8 as free_memory, swap_total::float8 as swap_total, swap_used::float8 as swap_used`,
      connectionId,
    ),
    latestRows<{
      mount_point: string;
      file_system_type: string | null;
      total_space: number | null;
      used_space: number | null;
      free_space: number | null;
    }>(
      sql,
      { probe: "pg_sys_disk_info", rows: "server" },
      `mount_point, file_system_type, total_space::float8 as total_space,
       used_space::float8 as used_space, free_space::float8 as free_space`,
      connectionId,
      'mount_point collate "C"',
    ),
    latestRows<{
      server_version: string | null;
      cluster_name: string | null;
      data_directory: string | null;
      max_connections: number | null;
      max_wal_senders: number | null;
      max_replication_slots: number | null;
    }>(
      sql,
      { probe: "pg_server_info", rows: "server" },
      "server_version, cluster_name, data_directory, max_connections, max_wal_senders, max_replication_slots",
      connectionId,
    ),
    latestRows<{
      datname: string;
      database_size_bytes: number | null;
      encoding: string | null;
      datconnlimit: number | null;
    }>(
      sql,
      { probe: "pg_database", rows: "server" },
      "datname, database_size_bytes::float8 as database_size_bytes, encoding, datconnlimit",
      connectionId,
      'datname collate "C"',
    ),
    latestRows<{
      database_name: string;
      extname: string;
      extversion: string | null;
      schema_name: string | null;
    }>(
      sql,
      { probe: "pg_extension", rows: "databases" },
      "database_name, extname, extversion, schema_name",
      connectionId,
      'database_name collate "C", extname collate "C"',
    ),
    latestRows<{ name: string; setting: string | null; unit: string | null; category: string | null }>(
      sql,
      { probe: "pg_settings", rows: "connection" },
      "name, setting, unit, category",
      connectionId,
      'category collate "C", name collate "C"',
    ),
  ]);

  const osRow = os[0];
  const cpuRow = cpu[0];
  const memoryRow = memory[0];
  const serverRow = server[0];
  const collectedAt = [os, cpu, memory, disks, server, databases, extensions, settings]
    .flatMap((rows) => rows.map((row) => row.collected_ms))
    .reduce<number | null>((latest, time) => (latest === null || time > latest ? time : latest), null);

  const extensionsByDatabase = new Map<string, string[]>();
  for (const extension of extensions) {
    const names = extensionsByDatabase.get(extension.database_name) ?? [];
    names.push(extension.extname);
    extensionsByDatabase.set(extension.database_name, names);
  }
  const keySettings = new Set<string>(KEY_SETTING_NAMES);

  return {
    connectionId,
    collectedAt: collectedAt === null ? null : new Date(collectedAt),
    host: {
      osName: osRow?.name ?? null,
      osVersion: osRow?.version ?? null,
      architecture: osRow?.architecture ?? null,
      hostname: osRow?.host_name ?? null,
      cpuModel: cpuRow?.model_name ?? null,
      cpuCores: cpuRow?.no_of_cores ?? null,
      cpuLogicalProcessors: cpuRow?.logical_processor ?? null,
      cpuClockSpeedHz: cpuRow?.clock_speed_hz ?? null,
      memoryTotalBytes: memoryRow?.total_memory ?? null,
      memoryUsedBytes: memoryRow?.used_memory ?? null,
      memoryFreeBytes: memoryRow?.free_memory ?? null,
      swapTotalBytes: memoryRow?.swap_total ?? null,
      swapUsedBytes: memoryRow?.swap_used ?? null,
      disks: disks.map((disk) => ({
        mountPoint: disk.mount_point,
        filesystemType: disk.file_system_type,
        totalBytes: disk.total_space,
        usedBytes: disk.used_space,
        freeBytes: disk.free_space,
      })),
    },
    server: {
      version: serverRow?.server_version ?? null,
      clusterName: serverRow?.cluster_name ?? null,
      dataDirectory: serverRow?.data_directory ?? null,
      maxConnections: serverRow?.max_connections ?? null,
      maxWalSenders: serverRow?.max_wal_senders ?? null,
      maxReplicationSlots: serverRow?.max_replication_slots ?? null,
    },
    databases: databases
      .filter((database) => !EXCLUDED_DATABASES.includes(database.datname))
      .map((database) => ({
        name: database.datname,
        sizeBytes: database.database_size_bytes,
        encoding: database.encoding,
        connectionLimit: database.datconnlimit,
        extensions: extensionsByDatabase.get(database.datname) ?? [],
      })),
    extensions: extensions.map((extension) => ({
      name: extension.extname,
      // Never null in pg_extension; the stored columns are merely nullable.
      version: extension.extversion ?? "",
      schema: extension.schema_name ?? "",
      database: extension.database_name,
    })),
    keySettings: settings
      .filter((setting) => keySettings.has(setting.name))
      .map((setting) => ({
        name: setting.name,
        // Never null in pg_settings; the stored columns are merely nullable.
        setting: setting.setting ?? "",
        unit: setting.unit || null,
        category: setting.category ?? "",
      })),
  };
}

/**
 * Where a probe's rows for a connection are (`database-ownership.ts`): the server's (stored once per
 * server), the connection's own, or per database under the connection collecting each database.
 */
interface ProbeRows {
  probe: string;
  rows: "server" | "connection" | "databases";
}

/**
 * The rows of the newest collection of a probe for a connection, in byte order of the `orderBy`
 * columns (collation "C") whatever the datastore's collation: per database, the newest collection
 * of the connection that collects it. A metrics table the collector has not created yet reads as no
 * data.
 */
async function latestRows<T extends object>(
  sql: Sql,
  { probe, rows }: ProbeRows,
  columns: string,
  connectionId: number,
  orderBy?: string,
): Promise<Timestamped<T>[]> {
  const table = `metrics."${probe}"`;
  // A snapshot probe stores nothing while its content is unchanged, and a changed snapshot may be
  // empty: its latest snapshot is the one probe_runs names, not the newest rows in its table.
  const latest = (connection: string) =>
    SNAPSHOT_PROBES.has(probe)
      ? `select snapshot_collected_at from probe_runs where connection_id = ${connection} and probe_name = $2`
      : `select max(collected_at) from ${table} where connection_id = ${connection} and $2::text is not null`;
  const selected = `${columns}, (extract(epoch from collected_at) * 1000)::float8 as collected_ms`;
  const query =
    rows === "databases"
      ? `select ${selected} from ${databaseSources("array[$1::int]")} source
         cross join lateral (select * from ${table} t where t.connection_id = source.source_id
           and t.collected_at = (${latest("source.source_id")}) and ${readsDatabaseRow("t", "source")}) t`
      : `select ${selected} from ${table}
         where connection_id = ${rows === "server" ? serverRowsConnection("$1") : "$1"}
           and collected_at = (${latest(rows === "server" ? serverRowsConnection("$1") : "$1")})`;
  try {
    return (await sql.unsafe(`${query} ${orderBy ? `order by ${orderBy}` : ""}`, [
      connectionId,
      probe,
    ])) as unknown as Timestamped<T>[];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "42P01" || code === "3F000") {
      return [];
    }
    throw error;
  }
}
