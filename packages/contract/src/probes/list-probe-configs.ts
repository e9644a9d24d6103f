import { z } from "@hono/zod-openapi";
import { jsonResponse, message, typedText } from "../common.js";
import { defineOperation } from "../operation.js";
import { ProbeConfigSchema } from "./schemas.js";

export const listProbeConfigs = defineOperation({
  method: "get",
  path: "/api/v1/probe-configs",
  operationId: "listProbeConfigs",
  summary: "List probe configurations",
  description:
    "Without connection_id: the global default of every probe. With connection_id: the settings that apply " +
    "to that connection, one per probe (its server-scope override, else its cluster's, its group's, or the " +
    "global default). Ordered by name.",
  tag: "probes",
  access: { note: "With connection_id, read access to that connection is required." },
  request: {
    query: z.object({
      connection_id: typedText<number, z.ZodType<number>>(
        z
          .string()
          .regex(/^[1-9]\d{0,9}$/, message("Invalid connection_id parameter"))
          .transform(Number),
      )
        .optional()
        .openapi({ type: "integer", description: "The connection whose effective settings to list" }),
    }),
  },
  responses: { 200: jsonResponse(z.array(ProbeConfigSchema), "Probe configurations") },
  errors: [400, 403, 404],
});
