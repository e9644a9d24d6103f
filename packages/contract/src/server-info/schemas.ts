import { z } from "@hono/zod-openapi";
import { idParam, TimestampSchema } from "../common.js";

/** `connection_id` of the server-information paths; the messages are the reference's. */
export const ConnectionIdParamSchema = z.object({
  connection_id: idParam("Invalid connection ID"),
});

const int = () => z.number().int();

export const DiskSchema = z
  .object({
    mount_point: z.string(),
    filesystem_type: z.string().nullable(),
    total_bytes: int().nullable(),
    used_bytes: int().nullable(),
    free_bytes: int().nullable(),
  })
  .openapi("ServerDisk");

export const SystemInfoSchema = z
  .object({
    os_name: z.string().nullable(),
    os_version: z.string().nullable(),
    architecture: z.string().nullable(),
    hostname: z.string().nullable(),
    cpu_model: z.string().nullable(),
    cpu_cores: int().nullable().openapi({ description: "Physical CPU cores" }),
    cpu_logical: int().nullable().openapi({ description: "Logical processors" }),
    cpu_clock_speed: int().nullable().openapi({ description: "Hertz" }),
    memory_total_bytes: int().nullable(),
    memory_used_bytes: int().nullable(),
    memory_free_bytes: int().nullable(),
    swap_total_bytes: int().nullable(),
    swap_used_bytes: int().nullable(),
    disks: z.array(DiskSchema),
  })
  .openapi("ServerSystemInfo");

export const DbServerInfoSchema = z
  .object({
    version: z.string().nullable(),
    cluster_name: z.string().nullable(),
    data_directory: z.string().nullable(),
    max_connections: int().nullable(),
    max_wal_senders: int().nullable(),
    max_replication_slots: int().nullable(),
  })
  .openapi("DbServerInfo");

export const ServerDatabaseSchema = z
  .object({
    name: z.string(),
    size_bytes: int().nullable(),
    encoding: z.string().nullable(),
    connection_limit: int().nullable(),
    extensions: z.array(z.string()),
  })
  .openapi("ServerDatabase");

export const ServerExtensionSchema = z
  .object({
    name: z.string(),
    version: z.string(),
    schema: z.string(),
    database: z.string(),
  })
  .openapi("ServerExtension");

export const KeySettingSchema = z
  .object({
    name: z.string(),
    setting: z.string(),
    unit: z.string().optional().openapi({ description: "Absent when the setting has no unit" }),
    category: z.string(),
  })
  .openapi("KeySetting");

export const AiAnalysisSchema = z
  .object({
    databases: z
      .record(z.string(), z.string())
      .openapi({ description: "Database name → generated description" }),
    generated_at: TimestampSchema,
  })
  .openapi("AIAnalysisResponse");

export const ServerInfoSchema = z
  .object({
    connection_id: int(),
    collected_at: TimestampSchema.nullable().openapi({
      description: "Most recent collection; null before any",
    }),
    system: SystemInfoSchema,
    dbserver: DbServerInfoSchema,
    postgresql: DbServerInfoSchema.openapi({
      deprecated: true,
      description: "Deprecated alias of dbserver, kept for clients of the reference interface",
    }),
    databases: z.array(ServerDatabaseSchema),
    extensions: z.array(ServerExtensionSchema),
    key_settings: z.array(KeySettingSchema),
    ai_analysis: AiAnalysisSchema.nullable().openapi({
      description: "Always null here; GET /api/v1/server-info/{connection_id}/ai-analysis generates it",
    }),
  })
  .openapi("ServerInfoResponse");
