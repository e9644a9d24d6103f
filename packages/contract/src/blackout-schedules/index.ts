import { createBlackoutSchedule } from "./create-blackout-schedule.js";
import { deleteBlackoutSchedule } from "./delete-blackout-schedule.js";
import { getBlackoutSchedule } from "./get-blackout-schedule.js";
import { listBlackoutSchedules } from "./list-blackout-schedules.js";
import { updateBlackoutSchedule } from "./update-blackout-schedule.js";

export * from "./create-blackout-schedule.js";
export * from "./delete-blackout-schedule.js";
export * from "./get-blackout-schedule.js";
export * from "./list-blackout-schedules.js";
export * from "./schemas.js";
export * from "./update-blackout-schedule.js";

export const blackoutSchedulesOperations = [
  listBlackoutSchedules,
  createBlackoutSchedule,
  getBlackoutSchedule,
  updateBlackoutSchedule,
  deleteBlackoutSchedule,
] as const;
