import type { Sql } from "../datastore.js";

/** The server-information response (spec, "Server information response"), from collected data only. */
export interface ServerInfo {
  connection_id: number;
  collected_at: string | null;
  system: ServerInfoSystem;
  dbserver: ServerInfoDbServer;
  databases: ServerInfoDatabase[];
  extensions: ServerInfoExtension[];
  key_settings: ServerInfoSetting[];
}

export interface ServerInfoSystem {
  os_name: string | null;
  os_version: string | null;
  architecture: string | null;
  hostname: string | null;
  cpu_model: string | null;
  cpu_cores: number | null;
  cpu_logical: number | null;
  cpu_clock_speed: number | null;
  memory_total_bytes: number | null;
  memory_used_bytes: number | null;
  memory_free_bytes: number | null;
  swap_total_bytes: number | null;
  swap_used_bytes: number | null;
  disks: ServerInfoDisk[];
}

export interface ServerInfoDisk {
  mount_point: string;
  filesystem_type: string | null;
  total_bytes: number | null;
  used_bytes: number | null;
  free_bytes: number | null;
}

export interface ServerInfoDbServer {
  version: string | null;
  cluster_name: string | null;
  data_directory: string | null;
  max_connections: number | null;
  max_wal_senders: number | null;
  max_replication_slots: number | null;
}

export interface ServerInfoDatabase {
  name: string;
  size_bytes: number | null;
  encoding: string | null;
  connection_limit: number | null;
  extensions: string[];
}

export interface ServerInfoExtension {
  name: string;
  version: string;
  schema: string;
  database: string;
}

export interface ServerInfoSetting {
  name: string;
  setting: string;
  /** Absent when the setting has no unit. */
  unit?: string;
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
 * Reads the latest collected data of a connection into the server-information response; null when the
 * connection does not exist. Never queries the monitored server: what was not collected yet is null
 * or [] (D5), including when the collector has not created the metrics tables yet.
 */
export async function readServerInfo(
  datastore: { sql: Sql },
  connectionId: number,
): Promise<ServerInfo | null> {
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
    }>(sql, "pg_sys_os_info", "name, version, architecture, host_name", connectionId),
    latestRows<{
      model_name: string | null;
      no_of_cores: number | null;
      logical_processor: number | null;
      clock_speed_hz: number | null;
    }>(
      sql,
      "pg_sys_cpu_info",
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
      "pg_sys_memory_info",
      `total_memory::float8 as total_memory, used_memory::float8 as used_memory,
       free_memory::float8 as free_memory, swap_total::float8 as swap_total, swap_used::float8 as swap_used`,
      connectionId,
    ),
    latestRows<ServerInfoDisk>(
      sql,
      "pg_sys_disk_info",
      `mount_point, file_system_type as filesystem_type, total_space::float8 as total_bytes,
       used_space::float8 as used_bytes, free_space::float8 as free_bytes`,
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
      "pg_server_info",
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
      "pg_database",
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
      "pg_extension",
      "database_name, extname, extversion, schema_name",
      connectionId,
      'database_name collate "C", extname collate "C"',
    ),
    latestRows<{ name: string; setting: string | null; unit: string | null; category: string | null }>(
      sql,
      "pg_settings",
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
    .flatMap((rows) => rows.slice(0, 1).map((row) => row.collected_ms))
    .reduce<number | null>((latest, time) => (latest === null || time > latest ? time : latest), null);

  const extensionsByDatabase = new Map<string, string[]>();
  for (const extension of extensions) {
    const names = extensionsByDatabase.get(extension.database_name) ?? [];
    names.push(extension.extname);
    extensionsByDatabase.set(extension.database_name, names);
  }
  const keySettings = new Set<string>(KEY_SETTING_NAMES);

  return {
    connection_id: connectionId,
    collected_at: collectedAt === null ? null : new Date(collectedAt).toISOString(),
    system: {
      os_name: osRow?.name ?? null,
      os_version: osRow?.version ?? null,
      architecture: osRow?.architecture ?? null,
      hostname: osRow?.host_name ?? null,
      cpu_model: cpuRow?.model_name ?? null,
      cpu_cores: cpuRow?.no_of_cores ?? null,
      cpu_logical: cpuRow?.logical_processor ?? null,
      cpu_clock_speed: cpuRow?.clock_speed_hz ?? null,
      memory_total_bytes: memoryRow?.total_memory ?? null,
      memory_used_bytes: memoryRow?.used_memory ?? null,
      memory_free_bytes: memoryRow?.free_memory ?? null,
      swap_total_bytes: memoryRow?.swap_total ?? null,
      swap_used_bytes: memoryRow?.swap_used ?? null,
      disks: disks.map((disk) => ({
        mount_point: disk.mount_point,
        filesystem_type: disk.filesystem_type,
        total_bytes: disk.total_bytes,
        used_bytes: disk.used_bytes,
        free_bytes: disk.free_bytes,
      })),
    },
    dbserver: {
      version: serverRow?.server_version ?? null,
      cluster_name: serverRow?.cluster_name ?? null,
      data_directory: serverRow?.data_directory ?? null,
      max_connections: serverRow?.max_connections ?? null,
      max_wal_senders: serverRow?.max_wal_senders ?? null,
      max_replication_slots: serverRow?.max_replication_slots ?? null,
    },
    databases: databases
      .filter((database) => !EXCLUDED_DATABASES.includes(database.datname))
      .map((database) => ({
        name: database.datname,
        size_bytes: database.database_size_bytes,
        encoding: database.encoding,
        connection_limit: database.datconnlimit,
        extensions: extensionsByDatabase.get(database.datname) ?? [],
      })),
    extensions: extensions.map((extension) => ({
      name: extension.extname,
      // Never null in pg_extension; the stored columns are merely nullable.
      version: extension.extversion ?? "",
      schema: extension.schema_name ?? "",
      database: extension.database_name,
    })),
    key_settings: settings
      .filter((setting) => keySettings.has(setting.name))
      .map((setting) => ({
        name: setting.name,
        // Never null in pg_settings; the stored columns are merely nullable.
        setting: setting.setting ?? "",
        ...(setting.unit ? { unit: setting.unit } : {}),
        category: setting.category ?? "",
      })),
  };
}

/**
 * The rows of the newest collection of a probe for a connection, in byte order of the `orderBy`
 * columns (collation "C") whatever the datastore's collation. A metrics table the collector has
 * not created yet reads as no data.
 */
async function latestRows<T extends object>(
  sql: Sql,
  probe: string,
  columns: string,
  connectionId: number,
  orderBy?: string,
): Promise<Timestamped<T>[]> {
  const table = `metrics."${probe}"`;
  // A snapshot probe stores nothing while its content is unchanged, and a changed snapshot may be
  // empty: its latest snapshot is the one probe_runs names, not the newest rows in its table.
  const latest = SNAPSHOT_PROBES.has(probe)
    ? "select snapshot_collected_at from probe_runs where connection_id = $1 and probe_name = $2"
    : `select max(collected_at) from ${table} where connection_id = $1 and $2::text is not null`;
  try {
    return (await sql.unsafe(
      `select ${columns}, (extract(epoch from collected_at) * 1000)::float8 as collected_ms from ${table}
       where connection_id = $1 and collected_at = (${latest})
       ${orderBy ? `order by ${orderBy}` : ""}`,
      [connectionId, probe],
    )) as unknown as Timestamped<T>[];
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "42P01" || code === "3F000") {
      return [];
    }
    throw error;
  }
}
