import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { NodeRelationshipSchema } from "../connections/schemas.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ClusterConnectionPathSchema, SetRelationshipsSchema } from "./schemas.js";

export const setConnectionRelationships = defineOperation({
  method: "put",
  path: "/api/v1/clusters/{id}/connections/{connId}/relationships",
  operationId: "setConnectionRelationships",
  summary: "Replace a server's manual relationships in a cluster (needs manage_connections)",
  tag: "clusters",
  access: { permission: "manage_connections" },
  request: { params: ClusterConnectionPathSchema, body: jsonBody(SetRelationshipsSchema) },
  responses: { 200: jsonResponse(z.array(NodeRelationshipSchema), "Every relationship of the cluster") },
  errors: [400, 404],
});
