import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import {
  csvQuery,
  LatestSnapshotSchema,
  limitQuery,
  metricsAccess,
  orderQuery,
  probeQuery,
} from "./schemas.js";

export const getLatestSnapshot = defineOperation({
  method: "get",
  path: "/api/v1/metrics/latest",
  operationId: "getLatestSnapshot",
  summary: "Latest probe snapshot per entity",
  description:
    "The newest row of each entity (distinct text columns of the probe) collected in the last hour. " +
    "exclude_schemas (default pg_catalog, information_schema, pg_toast; `none` for none) applies to probes " +
    "with schemaname.",
  tag: "metrics",
  access: metricsAccess,
  request: {
    query: probeQuery().extend({
      database_name: z.string().optional(),
      exclude_schemas: csvQuery("Comma-separated schemas to leave out, or none"),
      order_by: z.string().optional(),
      order: orderQuery(),
      limit: limitQuery(),
    }),
  },
  responses: { 200: jsonResponse(LatestSnapshotSchema, "Rows") },
  errors: [400, 403],
});
