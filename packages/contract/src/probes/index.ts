import { deleteProbeOverride } from "./delete-probe-override.js";
import { getProbeConfig } from "./get-probe-config.js";
import { listProbeConfigs } from "./list-probe-configs.js";
import { listProbeOverrides } from "./list-probe-overrides.js";
import { updateProbeConfig } from "./update-probe-config.js";
import { upsertProbeOverride } from "./upsert-probe-override.js";

export * from "./delete-probe-override.js";
export * from "./get-probe-config.js";
export * from "./list-probe-configs.js";
export * from "./list-probe-overrides.js";
export * from "./schemas.js";
export * from "./update-probe-config.js";
export * from "./upsert-probe-override.js";

export const probeOperations = [
  listProbeConfigs,
  getProbeConfig,
  updateProbeConfig,
  listProbeOverrides,
  upsertProbeOverride,
  deleteProbeOverride,
] as const;
