import { createRoute, z } from "@hono/zod-openapi";
import {
  authenticated,
  errorResponses,
  jsonResponse,
  message,
  publicAccess,
  TimestampSchema,
} from "../common.js";
import { tags } from "../tags.js";

export const LoginRequestSchema = z
  .object({
    username: z
      .string(message("Username is required"))
      .min(1, message("Username is required"))
      .openapi({ description: "Username for authentication", example: "admin" }),
    password: z
      .string(message("Password is required"))
      .min(1, message("Password is required"))
      .openapi({ description: "Password for authentication" }),
  })
  .openapi("LoginRequest");

export const LoginResponseSchema = z
  .object({
    success: z.boolean().openapi({ description: "Whether login succeeded", example: true }),
    session_token: z.string().openapi({
      description: "The session token (also set as the HttpOnly session_token cookie)",
      example: "q3Yb0dSxv8m1o7y9b4Jb5Jp7yQnK0m2hQh8Qe5xv9mI=",
    }),
    expires_at: TimestampSchema.openapi({ description: "When the session ends (24 hours after login)" }),
    message: z.string().openapi({ example: "Authentication successful" }),
  })
  .openapi("LoginResponse");

export const login = createRoute({
  method: "post",
  path: "/api/v1/auth/login",
  operationId: "login",
  summary: "Authenticate, obtain a session token",
  description:
    "Checks a username and password and starts a 24-hour session. The token is in the body and in " +
    "the HttpOnly, SameSite=Lax `session_token` cookie (Secure over HTTPS). Wrong passwords and " +
    "unknown users get the same 401. Login requests are limited per client address (429).",
  tags: [tags.authentication.name],
  security: publicAccess,
  request: {
    body: { required: true, content: { "application/json": { schema: LoginRequestSchema } } },
  },
  responses: {
    200: jsonResponse(LoginResponseSchema, "Successful authentication"),
    ...errorResponses(400, 401, 429),
  },
});

export const LogoutResponseSchema = z
  .object({
    success: z.boolean().openapi({ example: true }),
    message: z.string().openapi({ example: "Logged out successfully" }),
  })
  .openapi("LogoutResponse");

export const logout = createRoute({
  method: "post",
  path: "/api/v1/auth/logout",
  operationId: "logout",
  summary: "Log out, clear the session cookie",
  description:
    "Ends the session named by the session cookie or a Bearer session token (service tokens are " +
    "left alone) and clears the cookie. Always succeeds.",
  tags: [tags.authentication.name],
  security: publicAccess,
  responses: {
    200: jsonResponse(LogoutResponseSchema, "Logout successful"),
    ...errorResponses(405),
  },
});

export const UserInfoSchema = z
  .object({
    authenticated: z.boolean().openapi({ description: "Whether the caller is authenticated" }),
    username: z.string().optional().openapi({ description: "Username of the authenticated user" }),
    is_superuser: z.boolean().optional().openapi({ description: "Whether the user is a superuser" }),
    admin_permissions: z
      .array(z.string())
      .optional()
      .openapi({ description: "Admin permissions the user's groups grant (may contain *)" }),
    error: z.string().optional().openapi({ description: "Why a presented credential was not accepted" }),
  })
  .openapi("UserInfoResponse");

export const userInfo = createRoute({
  method: "get",
  path: "/api/v1/user/info",
  operationId: "getUserInfo",
  summary: "Current user information",
  description: 'Needs no token: an anonymous caller gets `{"authenticated": false}`.',
  tags: [tags.authentication.name],
  security: publicAccess,
  responses: {
    200: jsonResponse(UserInfoSchema, "User information"),
    ...errorResponses(405),
  },
});

export const CapabilitiesSchema = z
  .object({
    ai_enabled: z.boolean().openapi({ description: "Whether AI features are enabled" }),
    max_iterations: z.number().int().openapi({ description: "Maximum LLM tool-use iterations", example: 50 }),
  })
  .openapi("CapabilitiesResponse");

export const capabilities = createRoute({
  method: "get",
  path: "/api/v1/capabilities",
  operationId: "getCapabilities",
  summary: "Server capability flags",
  tags: [tags.authentication.name],
  security: authenticated,
  responses: {
    200: jsonResponse(CapabilitiesSchema, "Server capabilities"),
    ...errorResponses(401),
  },
});

export const authRoutes = { login, logout, userInfo, capabilities } as const;
