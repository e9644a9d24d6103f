import { z } from "@hono/zod-openapi";
import { idParam, message } from "../common.js";

export const ChannelScopeParamsSchema = z.object({
  scope: z.enum(["server", "cluster", "group"], message("Invalid scope: must be server, cluster, or group")),
  scopeId: idParam("Invalid scope ID"),
});
export const ChannelOverrideParamsSchema = ChannelScopeParamsSchema.extend({
  channelId: idParam("Invalid channel ID"),
});

export const ChannelOverrideSchema = z
  .object({
    channel_id: z.number().int(),
    channel_name: z.string(),
    channel_type: z.string(),
    description: z.string().nullable(),
    is_estate_default: z.boolean(),
    has_override: z.boolean(),
    override_enabled: z.boolean().nullable(),
  })
  .openapi("ChannelOverride");

export const ChannelOverrideUpdateSchema = z
  .object({ enabled: z.boolean(message("Request failed")) })
  .openapi("ChannelOverrideUpdate");
