import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { NodeRelationshipSchema } from "../connections/schemas.js";
import { defineOperation } from "../operation.js";
import { StoredClusterPathSchema } from "./schemas.js";

export const listClusterRelationships = defineOperation({
  method: "get",
  path: "/api/v1/clusters/{id}/relationships",
  operationId: "listClusterRelationships",
  summary: "Replication relationships between the servers of a cluster",
  tag: "clusters",
  access: { note: "Relationships with an end the caller cannot see are left out." },
  request: { params: StoredClusterPathSchema },
  responses: { 200: jsonResponse(z.array(NodeRelationshipSchema), "Relationships, by source and target") },
  errors: [400, 404],
});
