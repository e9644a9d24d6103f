import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { MemoryIdParamsSchema, MemoryPinnedSchema, MemoryPinSchema } from "./schemas.js";

export const updateMemoryPinned = defineOperation({
  method: "patch",
  path: "/api/v1/memories/{id}",
  operationId: "updateMemoryPinned",
  summary: "Update a memory's pin status",
  description: "Pins or unpins one of the caller's memories or a system-scope memory.",
  tag: "memories",
  access: { note: "Another user's user-scope memory is not found, for superusers too." },
  request: { params: MemoryIdParamsSchema, body: jsonBody(MemoryPinSchema) },
  responses: { 200: jsonResponse(MemoryPinnedSchema, "The new pin status") },
  errors: [400, 404],
});
