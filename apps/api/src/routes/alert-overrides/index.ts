import { deleteAlertOverrideHandler } from "./delete-alert-override.js";
import { getAlertOverrideContextHandler } from "./get-alert-override-context.js";
import { listAlertOverridesHandler } from "./list-alert-overrides.js";
import { upsertAlertOverrideHandler } from "./upsert-alert-override.js";

export const alertOverridesHandlers = [
  listAlertOverridesHandler,
  upsertAlertOverrideHandler,
  deleteAlertOverrideHandler,
  getAlertOverrideContextHandler,
];
