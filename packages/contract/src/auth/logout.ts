import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { LogoutResponseSchema } from "./schemas.js";

export const logout = defineOperation({
  method: "post",
  path: "/api/v1/auth/logout",
  operationId: "logout",
  summary: "Log out, clear the session cookie",
  description:
    "Ends the session named by the session cookie or a Bearer session token (service tokens are " +
    "left alone) and clears the cookie. Always succeeds.",
  tag: "authentication",
  access: "public",
  responses: { 200: jsonResponse(LogoutResponseSchema, "Logout successful") },
  errors: [405],
});
