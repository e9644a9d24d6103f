import type { ServerInfoSchema } from "@dbmon/contract";
import type { CollectedServerInfo } from "@dbmon/datastore";
import type { z } from "zod";

/**
 * The server-information document as the wire has it, without what the operation adds itself
 * (the deprecated `postgresql` alias of `dbserver`, and `ai_analysis`).
 */
export type ServerInfoDocument = Omit<z.infer<typeof ServerInfoSchema>, "postgresql" | "ai_analysis">;

/** What was collected about a server, in the wire's names. */
export function presentServerInfo(info: CollectedServerInfo): ServerInfoDocument {
  const { host, server } = info;
  return {
    connection_id: info.connectionId,
    collected_at: info.collectedAt?.toISOString() ?? null,
    system: {
      os_name: host.osName,
      os_version: host.osVersion,
      architecture: host.architecture,
      hostname: host.hostname,
      cpu_model: host.cpuModel,
      cpu_cores: host.cpuCores,
      cpu_logical: host.cpuLogicalProcessors,
      cpu_clock_speed: host.cpuClockSpeedHz,
      memory_total_bytes: host.memoryTotalBytes,
      memory_used_bytes: host.memoryUsedBytes,
      memory_free_bytes: host.memoryFreeBytes,
      swap_total_bytes: host.swapTotalBytes,
      swap_used_bytes: host.swapUsedBytes,
      disks: host.disks.map((disk) => ({
        mount_point: disk.mountPoint,
        filesystem_type: disk.filesystemType,
        total_bytes: disk.totalBytes,
        used_bytes: disk.usedBytes,
        free_bytes: disk.freeBytes,
      })),
    },
    dbserver: {
      version: server.version,
      cluster_name: server.clusterName,
      data_directory: server.dataDirectory,
      max_connections: server.maxConnections,
      max_wal_senders: server.maxWalSenders,
      max_replication_slots: server.maxReplicationSlots,
    },
    databases: info.databases.map((database) => ({
      name: database.name,
      size_bytes: database.sizeBytes,
      encoding: database.encoding,
      connection_limit: database.connectionLimit,
      extensions: database.extensions,
    })),
    extensions: info.extensions.map(({ name, version, schema, database }) => ({
      name,
      version,
      schema,
      database,
    })),
    key_settings: info.keySettings.map((setting) => ({
      name: setting.name,
      setting: setting.setting,
      ...(setting.unit ? { unit: setting.unit } : {}),
      category: setting.category,
    })),
  };
}
