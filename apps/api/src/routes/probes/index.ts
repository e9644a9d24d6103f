import { deleteProbeOverrideHandler } from "./delete-probe-override.js";
import { getProbeConfigHandler } from "./get-probe-config.js";
import { listProbeConfigsHandler } from "./list-probe-configs.js";
import { listProbeOverridesHandler } from "./list-probe-overrides.js";
import { updateProbeConfigHandler } from "./update-probe-config.js";
import { upsertProbeOverrideHandler } from "./upsert-probe-override.js";

export const probeHandlers = [
  listProbeConfigsHandler,
  getProbeConfigHandler,
  updateProbeConfigHandler,
  listProbeOverridesHandler,
  upsertProbeOverrideHandler,
  deleteProbeOverrideHandler,
];
