import { z } from "@hono/zod-openapi";
import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { GetOverviewQuerySchema, OverviewPendingSchema, OverviewSchema } from "./schemas.js";

export const getOverview = defineOperation({
  method: "get",
  path: "/api/v1/overview",
  operationId: "getOverview",
  summary: "AI-generated overview of the estate, a scope or a selection of connections",
  description:
    "Without parameters, the estate overview (regenerated on a significant change, or now with refresh=true); " +
    'status "generating" until the first one exists. With scope_type and scope_id, or connection_ids, a summary ' +
    "of those servers, cached for five minutes. 503 when no chat provider is configured.",
  tag: "overview",
  access: {
    note:
      "Scopes and selections cover only the connections the caller can see; a caller who cannot see every " +
      "connection gets a summary of those it can see instead of the estate's.",
  },
  request: { query: GetOverviewQuerySchema },
  responses: { 200: jsonResponse(z.union([OverviewSchema, OverviewPendingSchema]), "The overview") },
  errors: [400, 404, 503],
});
