import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { MemoryDeletedSchema, MemoryIdParamsSchema } from "./schemas.js";

export const deleteMemory = defineOperation({
  method: "delete",
  path: "/api/v1/memories/{id}",
  operationId: "deleteMemory",
  summary: "Delete a memory",
  description: "Deletes one of the caller's memories, or a system-scope memory.",
  tag: "memories",
  access: {
    note: "Another user's user-scope memory is not found, for superusers too; a system-scope memory needs the `store_system_memory` permission (403).",
  },
  request: { params: MemoryIdParamsSchema },
  responses: { 200: jsonResponse(MemoryDeletedSchema, "Memory deleted") },
  errors: [400, 403, 404],
});
