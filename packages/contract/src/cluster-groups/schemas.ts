import { z } from "@hono/zod-openapi";
import { clusterDescriptionSchema, clusterNameSchema, replicationTypeSchema } from "../clusters/schemas.js";
import { idParam, TimestampSchema } from "../common.js";

export const ClusterGroupPathSchema = z.object({ id: idParam("Invalid group ID") });

export const ClusterGroupSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    description: z.string().nullable(),
    owner_username: z.string().nullable(),
    is_shared: z.boolean(),
    is_default: z.boolean(),
    auto_group_key: z.string().nullable(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("ClusterGroup");

export const ClusterGroupRequestSchema = z
  .object({ name: clusterNameSchema, description: clusterDescriptionSchema })
  .openapi("ClusterGroupRequest");

export const ClusterInGroupCreateSchema = z
  .object({
    name: clusterNameSchema,
    description: clusterDescriptionSchema,
    replication_type: replicationTypeSchema,
  })
  .openapi("ClusterInGroupRequest");
