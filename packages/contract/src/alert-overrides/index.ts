import { deleteAlertOverride } from "./delete-alert-override.js";
import { getAlertOverrideContext } from "./get-alert-override-context.js";
import { listAlertOverrides } from "./list-alert-overrides.js";
import { upsertAlertOverride } from "./upsert-alert-override.js";

export * from "./delete-alert-override.js";
export * from "./get-alert-override-context.js";
export * from "./list-alert-overrides.js";
export * from "./schemas.js";
export * from "./upsert-alert-override.js";

export const alertOverridesOperations = [
  listAlertOverrides,
  upsertAlertOverride,
  deleteAlertOverride,
  getAlertOverrideContext,
] as const;
