import { jsonResponse } from "../common.js";
import { defineOperation } from "../operation.js";
import { UserInfoSchema } from "./schemas.js";

export const userInfo = defineOperation({
  method: "get",
  path: "/api/v1/user/info",
  operationId: "getUserInfo",
  summary: "Current user information",
  description: 'Needs no token: an anonymous caller gets `{"authenticated": false}`.',
  tag: "authentication",
  access: "public",
  responses: { 200: jsonResponse(UserInfoSchema, "User information") },
  errors: [405],
});
