import { z } from "@hono/zod-openapi";
import { message, TimestampSchema } from "../common.js";

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

export const LogoutResponseSchema = z
  .object({
    success: z.boolean().openapi({ example: true }),
    message: z.string().openapi({ example: "Logged out successfully" }),
  })
  .openapi("LogoutResponse");

export const UserInfoSchema = z
  .object({
    authenticated: z.boolean().openapi({ description: "Whether the caller is authenticated" }),
    username: z.string().optional().openapi({ description: "Username of the authenticated user" }),
    is_superuser: z.boolean().optional().openapi({
      description:
        "Whether the caller acts as a superuser: false for a superuser's token narrowed by a scope",
    }),
    admin_permissions: z
      .array(z.string())
      .optional()
      .openapi({ description: "Admin permissions the user's groups grant (may contain *)" }),
    error: z.string().optional().openapi({ description: "Why a presented credential was not accepted" }),
  })
  .openapi("UserInfoResponse");

export const CapabilitiesSchema = z
  .object({
    ai_enabled: z.boolean().openapi({ description: "Whether AI features are enabled" }),
    max_iterations: z.number().int().openapi({ description: "Maximum LLM tool-use iterations", example: 50 }),
  })
  .openapi("CapabilitiesResponse");
