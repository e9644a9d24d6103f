import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, idParam, jsonResponse, message, TimestampSchema } from "../common.js";
import { tags } from "../tags.js";

const tag = [tags.probes.name];

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
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("ProbeConfig");

const ProbeConfigIdParams = z.object({
  id: idParam("Invalid config ID").openapi({ param: { name: "id", in: "path" } }),
});

export const listProbeConfigs = createRoute({
  method: "get",
  path: "/api/v1/probe-configs",
  operationId: "listProbeConfigs",
  summary: "List probe configurations",
  description:
    "Without connection_id: the global default of every probe. With connection_id: the settings that apply " +
    "to that connection, one per probe (its server-scope override, else its cluster's, its group's, or the " +
    "global default). Ordered by name.",
  tags: tag,
  security: authenticated,
  request: {
    query: z.object({
      connection_id: z
        .string()
        .regex(/^[1-9]\d{0,9}$/, message("Invalid connection_id parameter"))
        .transform(Number)
        .optional()
        .openapi({ type: "integer", description: "The connection whose effective settings to list" }),
    }),
  },
  responses: {
    200: jsonResponse(z.array(ProbeConfigSchema), "Probe configurations"),
    ...errorResponses(400, 401, 403),
  },
});

export const getProbeConfig = createRoute({
  method: "get",
  path: "/api/v1/probe-configs/{id}",
  operationId: "getProbeConfig",
  summary: "Get a probe configuration",
  tags: tag,
  security: authenticated,
  request: { params: ProbeConfigIdParams },
  responses: {
    200: jsonResponse(ProbeConfigSchema, "The probe configuration"),
    ...errorResponses(400, 401, 404),
  },
});

const positive = () =>
  z.number(message("Request failed")).int(message("Request failed")).positive(message("Request failed"));

export const ProbeConfigUpdateSchema = z
  .object({
    is_enabled: z.boolean(message("Request failed")).optional(),
    collection_interval_seconds: positive().optional().openapi({ description: "Seconds, greater than 0" }),
    retention_days: positive().optional().openapi({ description: "Days, greater than 0" }),
  })
  .openapi("ProbeConfigUpdate");

export const updateProbeConfig = createRoute({
  method: "put",
  path: "/api/v1/probe-configs/{id}",
  operationId: "updateProbeConfig",
  summary: "Update a probe configuration",
  description:
    "Changes the given fields; running collectors apply the change at their next reload. Requires manage_probes.",
  tags: tag,
  security: authenticated,
  request: {
    params: ProbeConfigIdParams,
    body: { required: true, content: { "application/json": { schema: ProbeConfigUpdateSchema } } },
  },
  responses: {
    200: jsonResponse(ProbeConfigSchema, "The updated probe configuration"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const ProbeOverrideScopeSchema = z
  .enum(["server", "cluster", "group"], message("Invalid scope: must be server, cluster, or group"))
  .openapi({ description: "server (a connection), cluster or group (a cluster group)" });

const ProbeOverrideScopeParams = z.object({
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
    has_override: z.boolean(),
    override_enabled: z.boolean().nullable(),
    override_interval_seconds: z.number().int().nullable(),
    override_retention_days: z.number().int().nullable(),
  })
  .openapi("ProbeOverride");

export const listProbeOverrides = createRoute({
  method: "get",
  path: "/api/v1/probe-overrides/{scope}/{scopeId}",
  operationId: "listProbeOverrides",
  summary: "List probe overrides for a scope",
  description:
    "Every probe with its global default and this scope's override, if any. Non-superusers need a visible " +
    "connection in the scope.",
  tags: tag,
  security: authenticated,
  request: { params: ProbeOverrideScopeParams },
  responses: {
    200: jsonResponse(z.array(ProbeOverrideSchema), "Probes with this scope's overrides"),
    ...errorResponses(400, 401, 404),
  },
});

export const ProbeOverrideUpdateSchema = z
  .object({
    is_enabled: z.boolean(message("Request failed")),
    collection_interval_seconds: positive().openapi({ description: "Seconds, greater than 0" }),
    retention_days: positive().openapi({ description: "Days, greater than 0" }),
  })
  .openapi("ProbeOverrideUpdate");

const ProbeOverrideParams = ProbeOverrideScopeParams.extend({
  probeName: z.string().openapi({ description: "Probe name" }),
});

const StatusSchema = z.object({ status: z.literal("ok") }).openapi("ProbeOverrideStatus");

export const upsertProbeOverride = createRoute({
  method: "put",
  path: "/api/v1/probe-overrides/{scope}/{scopeId}/{probeName}",
  operationId: "upsertProbeOverride",
  summary: "Create or update an override",
  description:
    "Sets the probe's settings for the scope; they win over the broader scopes (server over cluster over " +
    "group over global). Requires manage_probes.",
  tags: tag,
  security: authenticated,
  request: {
    params: ProbeOverrideParams,
    body: { required: true, content: { "application/json": { schema: ProbeOverrideUpdateSchema } } },
  },
  responses: {
    200: jsonResponse(StatusSchema, "Saved"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const deleteProbeOverride = createRoute({
  method: "delete",
  path: "/api/v1/probe-overrides/{scope}/{scopeId}/{probeName}",
  operationId: "deleteProbeOverride",
  summary: "Delete an override",
  description: "The scope then inherits again. Requires manage_probes.",
  tags: tag,
  security: authenticated,
  request: { params: ProbeOverrideParams },
  responses: {
    200: jsonResponse(StatusSchema, "Deleted (or there was none)"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const probeRoutes = {
  listProbeConfigs,
  getProbeConfig,
  updateProbeConfig,
  listProbeOverrides,
  upsertProbeOverride,
  deleteProbeOverride,
} as const;
