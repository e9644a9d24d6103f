import { jsonResponse } from "../common.js";
import { defineOperation, jsonBody } from "../operation.js";
import { LoginRequestSchema, LoginResponseSchema } from "./schemas.js";

export const login = defineOperation({
  method: "post",
  path: "/api/v1/auth/login",
  operationId: "login",
  summary: "Authenticate, obtain a session token",
  description:
    "Checks a username and password and starts a 24-hour session. The token is in the body and in " +
    "the HttpOnly, SameSite=Lax `session_token` cookie (Secure over HTTPS). Wrong passwords and " +
    "unknown users get the same 401. Login requests are limited per client address (429).",
  tag: "authentication",
  access: "public",
  request: { body: jsonBody(LoginRequestSchema) },
  responses: { 200: jsonResponse(LoginResponseSchema, "Successful authentication") },
  errors: [400, 401, 429],
});
