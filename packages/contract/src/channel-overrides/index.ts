import { deleteChannelOverride } from "./delete-channel-override.js";
import { listChannelOverrides } from "./list-channel-overrides.js";
import { upsertChannelOverride } from "./upsert-channel-override.js";

export * from "./delete-channel-override.js";
export * from "./list-channel-overrides.js";
export * from "./schemas.js";
export * from "./upsert-channel-override.js";

export const channelOverridesOperations = [
  listChannelOverrides,
  upsertChannelOverride,
  deleteChannelOverride,
] as const;
