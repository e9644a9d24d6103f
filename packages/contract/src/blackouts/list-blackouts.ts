import { z } from "@hono/zod-openapi";
import { jsonResponse, lenientBoolQuery } from "../common.js";
import { defineOperation } from "../operation.js";
import { BlackoutListSchema, blackoutListQuery } from "./schemas.js";

export const listBlackouts = defineOperation({
  method: "get",
  path: "/api/v1/blackouts",
  operationId: "listBlackouts",
  summary: "List blackout windows",
  description:
    "Newest start first. `active=true` (or 1) keeps the windows active now, any other value those that are not.",
  tag: "blackouts",
  access: { note: "Windows whose scope holds no connection the caller can see are left out." },
  request: { query: z.object({ ...blackoutListQuery, active: lenientBoolQuery() }) },
  responses: { 200: jsonResponse(BlackoutListSchema, "Blackouts") },
});
