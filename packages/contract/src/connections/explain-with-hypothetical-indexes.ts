import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import {
  ConnectionPathSchema,
  HypotheticalExplainRequestSchema,
  HypotheticalExplainSchema,
} from "./schemas.js";

export const explainWithHypotheticalIndexes = defineOperation({
  method: "post",
  path: "/api/v1/connections/{id}/hypothetical-explain",
  operationId: "explainWithHypotheticalIndexes",
  summary: "Plan a statement without and with hypothetical indexes",
  description:
    "The statement is planned with EXPLAIN (never ANALYZE) in a READ ONLY session, then again after HypoPG made the given indexes hypothetically (in the session's memory; nothing is created on the server). Answers both plans, their costs, and each index's estimated size and whether the plan uses it. 409 when HypoPG is not installed in the database; the message says how to install it.",
  tag: "connections",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema, body: jsonBody(HypotheticalExplainRequestSchema) },
  responses: { 200: jsonResponse(HypotheticalExplainSchema, "Plans and costs without and with the indexes") },
  errors: [400, 404, 409, 429, 502],
});
