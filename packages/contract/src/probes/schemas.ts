import { z } from "@hono/zod-openapi";
import { idParam, message, TimestampSchema } from "../common.js";

/** Who may change probe settings, with the reference's refusal. */
export const manageProbesAccess = {
  permission: "manage_probes",
  message: "Permission denied: you do not have permission to manage probes",
} as const;

export const ProbeConfigSchema = z
  .object({
    id: z.number().int(),
    connection_id: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The connection of a server-scope setting; null for the global default" }),
    is_enabled: z.boolean(),
    name: z.string().openapi({ description: "Probe name (also its table in the metrics schema)" }),
    description: z.string(),
    collection_interval_seconds: z.number().int(),
    retention_days: z.number().int(),
    include_system_catalogs: z
      .boolean()
      .nullable()
      .openapi({
        description:
          "Whether the probe lists the system catalogs' tables or indexes too (schemas pg_catalog, " +
          "information_schema and pg_toast); null for a probe without any to leave out. Without them, " +
          "checks and alerts over table statistics see the user's objects only.",
      }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("ProbeConfig");

export const ProbeConfigIdParamsSchema = z.object({
  id: idParam("Invalid config ID").openapi({ param: { name: "id", in: "path" } }),
});

const includeSystemCatalogs = () =>
  z.boolean(message("Request failed")).openapi({
    description:
      "Whether the probe lists the system catalogs' objects too; only for a probe whose " +
      "include_system_catalogs is not null",
  });

const positive = () =>
  z.number(message("Request failed")).int(message("Request failed")).positive(message("Request failed"));

export const ProbeConfigUpdateSchema = z
  .object({
    is_enabled: z.boolean(message("Request failed")).optional(),
    collection_interval_seconds: positive().optional().openapi({ description: "Seconds, greater than 0" }),
    retention_days: positive().optional().openapi({ description: "Days, greater than 0" }),
    include_system_catalogs: includeSystemCatalogs().optional(),
  })
  .openapi("ProbeConfigUpdate");

export const ProbeOverrideScopeSchema = z
  .enum(["server", "cluster", "group"], message("Invalid scope: must be server, cluster, or group"))
  .openapi({ description: "server (a connection), cluster or group (a cluster group)" });

export const ProbeOverrideScopeParamsSchema = z.object({
  scope: ProbeOverrideScopeSchema,
  scopeId: idParam("Invalid scope ID"),
});

export const ProbeOverrideSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    default_enabled: z.boolean(),
    default_interval_seconds: z.number().int(),
    default_retention_days: z.number().int(),
    default_include_system_catalogs: z
      .boolean()
      .nullable()
      .openapi({ description: "null for a probe without system catalogs to leave out" }),
    has_override: z.boolean(),
    override_enabled: z.boolean().nullable(),
    override_interval_seconds: z.number().int().nullable(),
    override_retention_days: z.number().int().nullable(),
    override_include_system_catalogs: z.boolean().nullable(),
  })
  .openapi("ProbeOverride");

export const ProbeOverrideUpdateSchema = z
  .object({
    is_enabled: z.boolean(message("Request failed")),
    collection_interval_seconds: positive().openapi({ description: "Seconds, greater than 0" }),
    retention_days: positive().openapi({ description: "Days, greater than 0" }),
    include_system_catalogs: includeSystemCatalogs()
      .optional()
      .openapi({ description: "Absent: the global default's" }),
  })
  .openapi("ProbeOverrideUpdate");

export const ProbeOverrideParamsSchema = ProbeOverrideScopeParamsSchema.extend({
  probeName: z.string().openapi({ description: "Probe name" }),
});

export const ProbeOverrideStatusSchema = z.object({ status: z.literal("ok") }).openapi("ProbeOverrideStatus");
