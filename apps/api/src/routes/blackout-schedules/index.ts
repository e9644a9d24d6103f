import { createBlackoutScheduleHandler } from "./create-blackout-schedule.js";
import { deleteBlackoutScheduleHandler } from "./delete-blackout-schedule.js";
import { getBlackoutScheduleHandler } from "./get-blackout-schedule.js";
import { listBlackoutSchedulesHandler } from "./list-blackout-schedules.js";
import { updateBlackoutScheduleHandler } from "./update-blackout-schedule.js";

export const blackoutSchedulesHandlers = [
  listBlackoutSchedulesHandler,
  createBlackoutScheduleHandler,
  getBlackoutScheduleHandler,
  updateBlackoutScheduleHandler,
  deleteBlackoutScheduleHandler,
];
