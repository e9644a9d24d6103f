import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { ConnectionPathSchema, IndexAdviceRequestSchema, IndexAdviceSchema } from "./schemas.js";

export const adviseIndexes = defineOperation({
  method: "post",
  path: "/api/v1/connections/{id}/index-advice",
  operationId: "adviseIndexes",
  summary: "Recommend indexes for a database's workload, costed with hypothetical indexes",
  description:
    "Candidate indexes come from the statements' parse trees (columns compared with values, joined on and sorted by; equality columns first, then a range or the sort; with INCLUDE columns for index-only scans); candidates an existing index already serves (same leading columns) are left out. Each is costed with HypoPG: the statements are planned with EXPLAIN (never ANALYZE) in a READ ONLY session, without and with the hypothetical index; nothing is created on the server. Indexes are chosen greedily by the cost they save until the size budget is spent. The workload is the given statements, or the top statements of pg_stat_statements. 409 when HypoPG (or, without statements, pg_stat_statements) is not installed in the database; the message says how to install it.",
  tag: "connections",
  access: { connection: { param: "id", level: "read" } },
  request: { params: ConnectionPathSchema, body: jsonBody(IndexAdviceRequestSchema) },
  responses: { 200: jsonResponse(IndexAdviceSchema, "Recommended indexes and the costs of the statements") },
  errors: [400, 404, 409, 429, 502],
});
