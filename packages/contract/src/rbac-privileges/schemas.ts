import { z } from "@hono/zod-openapi";
import { message, TimestampSchema } from "../common.js";

export const AccessLevelSchema = z
  .enum(["read", "read_write"], message("access_level must be 'read' or 'read_write'"))
  .openapi({ description: "read, or read_write", example: "read" });

const ConnectionIdSchema = z
  .number(message("Valid connection_id is required"))
  .int(message("Valid connection_id is required"))
  .min(0, message("Valid connection_id is required"))
  .openapi({ description: "Connection ID; 0 stands for every connection", example: 3 });

/** A level of access to one connection (0 = every connection), as groups and token scopes grant it. */
export const ConnectionAccessSchema = z
  .object({ connection_id: ConnectionIdSchema, access_level: AccessLevelSchema })
  .openapi("ConnectionAccess");

export const McpPrivilegeSchema = z
  .object({
    id: z.number().int().openapi({ description: "Identifier ID; 0 is the wildcard" }),
    identifier: z.string().openapi({ example: "query_database" }),
    item_type: z.enum(["tool", "resource", "prompt"]),
    description: z.string(),
    is_public: z.boolean().openapi({ description: "Usable by every authenticated caller" }),
    created_at: TimestampSchema,
  })
  .openapi("MCPPrivilege");
