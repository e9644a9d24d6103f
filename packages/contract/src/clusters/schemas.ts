import { z } from "@hono/zod-openapi";
import { idParam, message, TimestampSchema } from "../common.js";
import { NodeRelationshipSchema } from "../connections/schemas.js";

// Path parameters

/** A cluster in a path: its number, `cluster-N`, or an auto-detected `server-N` / `cluster-spock-<prefix>`. */
export const ClusterRefSchema = z
  .string()
  .regex(
    /^(?:[1-9]\d{0,9}|cluster-[1-9]\d{0,9}|server-[1-9]\d{0,9}|cluster-spock-[^/]{1,200})$/,
    message("Invalid cluster ID"),
  )
  .openapi({
    description: "N or cluster-N; for PUT and DELETE also server-{connection id} or cluster-spock-{prefix}",
    example: "cluster-3",
  });

export const ClusterPathSchema = z.object({ id: ClusterRefSchema });
export const StoredClusterPathSchema = z.object({
  id: z
    .string()
    .regex(/^(?:cluster-)?[1-9]\d{0,9}$/, message("Invalid cluster ID"))
    .transform((value) => Number(value.replace("cluster-", "")))
    .openapi({ description: "N or cluster-N", example: "3" }),
});
export const ClusterServerPathSchema = StoredClusterPathSchema.extend({
  connectionId: idParam("Invalid connection ID"),
});
export const ClusterConnectionPathSchema = StoredClusterPathSchema.extend({
  connId: idParam("Invalid connection ID"),
});
export const ClusterRelationshipPathSchema = StoredClusterPathSchema.extend({
  relationshipId: idParam("Invalid relationship ID"),
});
// Bodies and answers

/** A cluster's or a group's name. */
export const clusterNameSchema = z
  .string(message("Name is required"))
  .trim()
  .min(1, message("Name is required"))
  .max(255);
/** A cluster's or a group's description. */
export const clusterDescriptionSchema = z.string().max(2000).nullable().optional();

export const ClusterSchema = z
  .object({
    id: z.number().int(),
    group_id: z.number().int().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    replication_type: z.string().nullable(),
    auto_cluster_key: z
      .string()
      .nullable()
      .openapi({ description: "Key of an auto-detected cluster (spock:, binary:, logical:, standalone:)" }),
    owner_username: z.string().nullable(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Cluster");

export const replicationTypeSchema = z.string().max(64).nullable().optional();
const groupId = z
  .number(message("group_id must be a positive integer"))
  .int()
  .positive(message("group_id must be a positive integer"));

export const ClusterCreateSchema = z
  .object({
    name: clusterNameSchema,
    description: clusterDescriptionSchema,
    replication_type: replicationTypeSchema,
    group_id: groupId.optional(),
  })
  .openapi("ClusterRequest");

export const ClusterUpdateSchema = z
  .object({
    name: z.string().trim().max(255).optional(),
    description: z.string().max(2000).optional(),
    replication_type: z.string().max(64).optional(),
    group_id: groupId.optional(),
    auto_cluster_key: z
      .string()
      .max(255)
      .optional()
      .openapi({ description: "For server-N ids: the key of the auto-detected cluster to override" }),
  })
  .openapi("ClusterUpdateRequest");

export const ServerStatusSchema = z.enum(["online", "warning", "offline", "unknown"]).openapi("ServerStatus");

export const TopologyRelationshipSchema = z
  .object({
    target_server_id: z.number().int(),
    target_server_name: z.string(),
    relationship_type: NodeRelationshipSchema.shape.relationship_type,
    is_auto_detected: z.boolean(),
  })
  .openapi("TopologyRelationship");

export interface TopologyServer {
  id: number;
  name: string;
  description: string;
  host: string;
  port: number;
  status: z.infer<typeof ServerStatusSchema>;
  connection_error: string | null;
  active_alert_count: number;
  role: string | null;
  primary_role: string;
  is_expandable: boolean;
  membership_source: "auto" | "manual";
  owner_username: string | null;
  version: string | null;
  os: string | null;
  platform: string | null;
  spock_node_name: string | null;
  spock_version: string | null;
  database_name: string;
  username: string;
  children: TopologyServer[];
  relationships: z.infer<typeof TopologyRelationshipSchema>[];
}

export const TopologyServerSchema: z.ZodType<TopologyServer> = z
  .lazy(() =>
    z.object({
      id: z.number().int(),
      name: z.string(),
      description: z.string(),
      host: z.string(),
      port: z.number().int(),
      status: ServerStatusSchema,
      connection_error: z.string().nullable(),
      active_alert_count: z.number().int(),
      role: z.string().nullable(),
      primary_role: z.string().openapi({
        description:
          "binary_primary, binary_standby, binary_cascading, spock_node, logical_publisher, " +
          "logical_subscriber, logical_bidirectional, standalone, or unknown before the first collection",
      }),
      is_expandable: z.boolean(),
      membership_source: z.enum(["auto", "manual"]),
      owner_username: z.string().nullable(),
      version: z.string().nullable(),
      os: z.string().nullable(),
      platform: z.string().nullable().openapi({ description: "CPU architecture of the server's host" }),
      spock_node_name: z.string().nullable(),
      spock_version: z.string().nullable(),
      database_name: z.string(),
      username: z.string(),
      children: z.array(TopologyServerSchema),
      relationships: z.array(TopologyRelationshipSchema),
    }),
  )
  .openapi("TopologyServer");

export const TopologyClusterSchema = z
  .object({
    id: z.string().openapi({ description: "cluster-N, server-N or cluster-spock-<prefix>" }),
    name: z.string(),
    description: z.string().nullable(),
    cluster_type: z.enum(["spock", "spock_ha", "binary", "logical", "server", "manual"]),
    replication_type: z.string().nullable(),
    auto_cluster_key: z.string().nullable(),
    servers: z.array(TopologyServerSchema),
  })
  .openapi("TopologyCluster");

export const TopologyGroupSchema = z
  .object({
    id: z.string().openapi({ description: "group-N" }),
    name: z.string(),
    description: z.string().nullable(),
    is_default: z.boolean(),
    auto_group_key: z.string().nullable(),
    clusters: z.array(TopologyClusterSchema),
  })
  .openapi("TopologyGroup");

export const ClusterServerSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    host: z.string(),
    port: z.number().int(),
    status: ServerStatusSchema,
    connection_error: z.string().nullable(),
    role: z.string().nullable(),
    membership_source: z.enum(["auto", "manual"]),
    database_name: z.string(),
    is_monitored: z.boolean(),
    cluster_id: z.number().int(),
  })
  .openapi("ClusterServer");

export const AddServerToClusterSchema = z
  .object({
    connection_id: z
      .number(message("A valid connection_id is required"))
      .int(message("A valid connection_id is required"))
      .positive(message("A valid connection_id is required")),
    role: z.string().max(64).nullable().optional(),
  })
  .openapi("AddServerToClusterRequest");

export const ClusterMembershipSchema = z
  .object({ cluster_id: z.number().int(), connection_id: z.number().int(), role: z.string().nullable() })
  .openapi("ClusterMembership");

export const SetRelationshipsSchema = z
  .object({
    relationships: z.array(
      z.object({
        target_connection_id: z
          .number(message("target_connection_id must be a positive integer"))
          .int()
          .positive(message("target_connection_id must be a positive integer")),
        relationship_type: z
          .string(message("relationship_type is required"))
          .openapi({ enum: ["streams_from", "subscribes_to", "replicates_with"] }),
      }),
      message("relationships must be an array"),
    ),
  })
  .openapi("SetRelationshipsRequest");
