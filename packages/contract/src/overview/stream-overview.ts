import { defineOperation } from "../operation.js";
import { OverviewQuerySchema, OverviewStreamSchema } from "./schemas.js";

export const streamOverview = defineOperation({
  method: "get",
  path: "/api/v1/overview/stream",
  operationId: "streamOverview",
  summary: "Server-Sent Events stream of overviews",
  description:
    "Each new overview of the requested estate, scope or selection as an `overview` event (`id:` its " +
    "generated_at, `data:` the object GET /api/v1/overview returns), the current one first when there is " +
    "one; a `:keepalive` comment every 30 seconds. Parameters are checked before the stream starts. A user " +
    "may have only so many overview streams open at once on one dbmon process (10 unless configured): one " +
    "more is refused with 429 until one of them ends.",
  tag: "overview",
  access: { note: "Scopes and selections cover only the connections the caller can see." },
  request: { query: OverviewQuerySchema },
  responses: {
    200: {
      description: "The event stream",
      content: { "text/event-stream": { schema: OverviewStreamSchema } },
    },
  },
  errors: [400, 404, 429, 503],
});
