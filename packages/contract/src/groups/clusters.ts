import { createRoute, z } from "@hono/zod-openapi";
import { authenticated, errorResponses, idParam, jsonResponse, message, TimestampSchema } from "../common.js";
import { tags } from "../tags.js";
import { NodeRelationshipSchema } from "./connections.js";

const tag = [tags.clusters.name];
const noContent = { description: "Done; no body" };

// Path parameters

export const ClusterGroupPathSchema = z.object({ id: idParam("Invalid group ID") });

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

const name = z.string(message("Name is required")).trim().min(1, message("Name is required")).max(255);
const description = z.string().max(2000).nullable().optional();

export const ClusterGroupRequestSchema = z.object({ name, description }).openapi("ClusterGroupRequest");

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

const replicationType = z.string().max(64).nullable().optional();
const groupId = z
  .number(message("group_id must be a positive integer"))
  .int()
  .positive(message("group_id must be a positive integer"));

export const ClusterCreateSchema = z
  .object({ name, description, replication_type: replicationType, group_id: groupId.optional() })
  .openapi("ClusterRequest");

export const ClusterInGroupCreateSchema = z
  .object({ name, description, replication_type: replicationType })
  .openapi("ClusterInGroupRequest");

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

// Cluster groups

const groupTag = tag;

export const listClusterGroups = createRoute({
  method: "get",
  path: "/api/v1/cluster-groups",
  operationId: "listClusterGroups",
  summary: "List the cluster groups the caller can see",
  tags: groupTag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.array(ClusterGroupSchema), "Groups, the default first"),
    ...errorResponses(401),
  },
});

export const createClusterGroup = createRoute({
  method: "post",
  path: "/api/v1/cluster-groups",
  operationId: "createClusterGroup",
  summary: "Create a cluster group (needs manage_connections)",
  tags: groupTag,
  security: authenticated,
  request: {
    body: { required: true, content: { "application/json": { schema: ClusterGroupRequestSchema } } },
  },
  responses: {
    201: jsonResponse(ClusterGroupSchema, "The new group"),
    ...errorResponses(400, 401, 403, 409),
  },
});

export const getClusterGroup = createRoute({
  method: "get",
  path: "/api/v1/cluster-groups/{id}",
  operationId: "getClusterGroup",
  summary: "Get a cluster group",
  tags: groupTag,
  security: authenticated,
  request: { params: ClusterGroupPathSchema },
  responses: { 200: jsonResponse(ClusterGroupSchema, "The group"), ...errorResponses(400, 401, 404) },
});

export const updateClusterGroup = createRoute({
  method: "put",
  path: "/api/v1/cluster-groups/{id}",
  operationId: "updateClusterGroup",
  summary: "Rename or describe a cluster group (owner or manage_connections)",
  tags: groupTag,
  security: authenticated,
  request: {
    params: ClusterGroupPathSchema,
    body: { required: true, content: { "application/json": { schema: ClusterGroupRequestSchema } } },
  },
  responses: {
    200: jsonResponse(ClusterGroupSchema, "The updated group"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

export const deleteClusterGroup = createRoute({
  method: "delete",
  path: "/api/v1/cluster-groups/{id}",
  operationId: "deleteClusterGroup",
  summary: "Delete a cluster group and its clusters (owner or manage_connections; not the default group)",
  tags: groupTag,
  security: authenticated,
  request: { params: ClusterGroupPathSchema },
  responses: { 204: noContent, ...errorResponses(400, 401, 403, 404) },
});

export const listGroupClusters = createRoute({
  method: "get",
  path: "/api/v1/cluster-groups/{id}/clusters",
  operationId: "listGroupClusters",
  summary: "List the clusters of a group",
  tags: groupTag,
  security: authenticated,
  request: { params: ClusterGroupPathSchema },
  responses: {
    200: jsonResponse(z.array(ClusterSchema), "Clusters, by name"),
    ...errorResponses(400, 401, 404),
  },
});

export const createClusterInGroup = createRoute({
  method: "post",
  path: "/api/v1/cluster-groups/{id}/clusters",
  operationId: "createClusterInGroup",
  summary: "Create a cluster in a group (needs manage_connections)",
  tags: groupTag,
  security: authenticated,
  request: {
    params: ClusterGroupPathSchema,
    body: { required: true, content: { "application/json": { schema: ClusterInGroupCreateSchema } } },
  },
  responses: { 201: jsonResponse(ClusterSchema, "The new cluster"), ...errorResponses(400, 401, 403, 404) },
});

// Clusters

export const getClusterTopology = createRoute({
  method: "get",
  path: "/api/v1/clusters",
  operationId: "getClusterTopology",
  summary: "Groups, their clusters and servers, with status, roles, alerts and relationships",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(
      z.array(TopologyGroupSchema),
      "The hierarchy, pruned to the servers the caller can see",
    ),
    ...errorResponses(401),
  },
});

export const createCluster = createRoute({
  method: "post",
  path: "/api/v1/clusters",
  operationId: "createCluster",
  summary: "Create a cluster (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: { body: { required: true, content: { "application/json": { schema: ClusterCreateSchema } } } },
  responses: { 201: jsonResponse(ClusterSchema, "The new cluster"), ...errorResponses(400, 401, 403) },
});

export const listClustersFlat = createRoute({
  method: "get",
  path: "/api/v1/clusters/list",
  operationId: "listClustersFlat",
  summary: "Every cluster the caller can see, flat (for pickers)",
  tags: tag,
  security: authenticated,
  responses: {
    200: jsonResponse(z.array(ClusterSchema), "Clusters, by name"),
    ...errorResponses(401),
  },
});

export const getCluster = createRoute({
  method: "get",
  path: "/api/v1/clusters/{id}",
  operationId: "getCluster",
  summary: "Get a cluster (server-N and cluster-spock-* ids answer 405)",
  tags: tag,
  security: authenticated,
  request: { params: ClusterPathSchema },
  responses: { 200: jsonResponse(ClusterSchema, "The cluster"), ...errorResponses(400, 401, 404, 405) },
});

export const updateCluster = createRoute({
  method: "put",
  path: "/api/v1/clusters/{id}",
  operationId: "updateCluster",
  summary: "Update a cluster, or rename or move an auto-detected one (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: {
    params: ClusterPathSchema,
    body: { required: true, content: { "application/json": { schema: ClusterUpdateSchema } } },
  },
  responses: {
    200: jsonResponse(ClusterSchema, "The updated cluster"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const deleteCluster = createRoute({
  method: "delete",
  path: "/api/v1/clusters/{id}",
  operationId: "deleteCluster",
  summary: "Delete a manual cluster, or dismiss an auto-detected one for good (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: { params: ClusterPathSchema },
  responses: { 204: noContent, ...errorResponses(400, 401, 403, 404) },
});

export const listClusterServers = createRoute({
  method: "get",
  path: "/api/v1/clusters/{id}/servers",
  operationId: "listClusterServers",
  summary: "The servers of a cluster the caller can see",
  tags: tag,
  security: authenticated,
  request: { params: StoredClusterPathSchema },
  responses: {
    200: jsonResponse(z.array(ClusterServerSchema), "Servers, by name"),
    ...errorResponses(400, 401, 404),
  },
});

export const addServerToCluster = createRoute({
  method: "post",
  path: "/api/v1/clusters/{id}/servers",
  operationId: "addServerToCluster",
  summary: "Place a server in a cluster by hand (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: {
    params: StoredClusterPathSchema,
    body: { required: true, content: { "application/json": { schema: AddServerToClusterSchema } } },
  },
  responses: {
    200: jsonResponse(ClusterMembershipSchema, "The membership"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const removeServerFromCluster = createRoute({
  method: "delete",
  path: "/api/v1/clusters/{id}/servers/{connectionId}",
  operationId: "removeServerFromCluster",
  summary: "Take a server out of a cluster and hand it back to auto-detection (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: { params: ClusterServerPathSchema },
  responses: { 204: noContent, ...errorResponses(400, 401, 403, 404) },
});

export const listClusterRelationships = createRoute({
  method: "get",
  path: "/api/v1/clusters/{id}/relationships",
  operationId: "listClusterRelationships",
  summary: "Replication relationships between the servers of a cluster",
  tags: tag,
  security: authenticated,
  request: { params: StoredClusterPathSchema },
  responses: {
    200: jsonResponse(z.array(NodeRelationshipSchema), "Relationships, by source and target"),
    ...errorResponses(400, 401, 404),
  },
});

export const setConnectionRelationships = createRoute({
  method: "put",
  path: "/api/v1/clusters/{id}/connections/{connId}/relationships",
  operationId: "setConnectionRelationships",
  summary: "Replace a server's manual relationships in a cluster (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: {
    params: ClusterConnectionPathSchema,
    body: { required: true, content: { "application/json": { schema: SetRelationshipsSchema } } },
  },
  responses: {
    200: jsonResponse(z.array(NodeRelationshipSchema), "Every relationship of the cluster"),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const clearConnectionRelationships = createRoute({
  method: "delete",
  path: "/api/v1/clusters/{id}/connections/{connId}/relationships",
  operationId: "clearConnectionRelationships",
  summary: "Remove a server's manual relationships in a cluster (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: { params: ClusterConnectionPathSchema },
  responses: { 204: noContent, ...errorResponses(400, 401, 403, 404) },
});

export const deleteClusterRelationship = createRoute({
  method: "delete",
  path: "/api/v1/clusters/{id}/relationships/{relationshipId}",
  operationId: "deleteClusterRelationship",
  summary: "Delete one relationship of a cluster (needs manage_connections)",
  tags: tag,
  security: authenticated,
  request: { params: ClusterRelationshipPathSchema },
  responses: { 204: noContent, ...errorResponses(400, 401, 403, 404) },
});

/** Operations of this group, in registration order (`/clusters/list` before `/clusters/{id}`). */
export const clusterRoutes = {
  listClusterGroups,
  createClusterGroup,
  getClusterGroup,
  updateClusterGroup,
  deleteClusterGroup,
  listGroupClusters,
  createClusterInGroup,
  getClusterTopology,
  createCluster,
  listClustersFlat,
  getCluster,
  updateCluster,
  deleteCluster,
  listClusterServers,
  addServerToCluster,
  removeServerFromCluster,
  listClusterRelationships,
  setConnectionRelationships,
  clearConnectionRelationships,
  deleteClusterRelationship,
} as const;
