import { deleteChannelOverrideHandler } from "./delete-channel-override.js";
import { listChannelOverridesHandler } from "./list-channel-overrides.js";
import { upsertChannelOverrideHandler } from "./upsert-channel-override.js";

export const channelOverridesHandlers = [
  listChannelOverridesHandler,
  upsertChannelOverrideHandler,
  deleteChannelOverrideHandler,
];
