import { createBlackoutHandler } from "./create-blackout.js";
import { deleteBlackoutHandler } from "./delete-blackout.js";
import { getBlackoutHandler } from "./get-blackout.js";
import { listBlackoutsHandler } from "./list-blackouts.js";
import { stopBlackoutHandler } from "./stop-blackout.js";
import { updateBlackoutHandler } from "./update-blackout.js";

export const blackoutsHandlers = [
  listBlackoutsHandler,
  createBlackoutHandler,
  getBlackoutHandler,
  updateBlackoutHandler,
  deleteBlackoutHandler,
  stopBlackoutHandler,
];
