import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { BlackoutCreateRequestSchema, BlackoutSchema } from "./schemas.js";

export const createBlackout = defineOperation({
  method: "post",
  path: "/api/v1/blackouts",
  operationId: "createBlackout",
  summary: "Create a blackout",
  description: "Past and future windows are allowed.",
  tag: "blackouts",
  access: {
    permission: "manage_blackouts",
    note: "A scope that holds no connection the caller can see is not found.",
  },
  request: { body: jsonBody(BlackoutCreateRequestSchema) },
  responses: { 201: jsonResponse(BlackoutSchema, "Created") },
  errors: [400, 404],
});
