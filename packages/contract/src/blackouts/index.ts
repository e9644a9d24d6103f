import { createBlackout } from "./create-blackout.js";
import { deleteBlackout } from "./delete-blackout.js";
import { getBlackout } from "./get-blackout.js";
import { listBlackouts } from "./list-blackouts.js";
import { stopBlackout } from "./stop-blackout.js";
import { updateBlackout } from "./update-blackout.js";

export * from "./create-blackout.js";
export * from "./delete-blackout.js";
export * from "./get-blackout.js";
export * from "./list-blackouts.js";
export * from "./schemas.js";
export * from "./stop-blackout.js";
export * from "./update-blackout.js";

export const blackoutsOperations = [
  listBlackouts,
  createBlackout,
  getBlackout,
  updateBlackout,
  deleteBlackout,
  stopBlackout,
] as const;
