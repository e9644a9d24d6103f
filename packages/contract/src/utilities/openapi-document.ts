import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { OpenApiDocumentSchema } from "./schemas.js";

export const openApiDocument = defineOperation({
  method: "get",
  path: "/api/v1/openapi.json",
  operationId: "getOpenApiDocument",
  summary: "OpenAPI 3.0.3 description of this API",
  tag: "utilities",
  access: "public",
  responses: { 200: jsonResponse(OpenApiDocumentSchema, "The OpenAPI 3.0.3 document") },
  errors: [405],
});
