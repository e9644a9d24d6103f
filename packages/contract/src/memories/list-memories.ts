import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { MemoryListQuerySchema, MemoryListSchema } from "./schemas.js";

export const listMemories = defineOperation({
  method: "get",
  path: "/api/v1/memories",
  operationId: "listMemories",
  summary: "List pinned memories",
  description:
    "The caller's own memories and every system-scope memory, most recently updated first. Memories are stored through the `store_memory` MCP tool.",
  tag: "memories",
  access: { note: "Other users' user-scope memories are never listed, for superusers too." },
  request: { query: MemoryListQuerySchema },
  responses: { 200: jsonResponse(MemoryListSchema, "The memories") },
  errors: [400],
});
