import { createBlackoutSchedule } from "@dbmon/contract";
import { presentSchedule, scheduleInputOf } from "../../alerting/schedules.js";
import { implement } from "../../http/operations.js";

export const createBlackoutScheduleHandler = implement(createBlackoutSchedule, async (c) => {
  const input = scheduleInputOf(c.req.valid("json"));
  return c.json(
    presentSchedule(await c.get("services").blackoutSchedules.create(c.get("access"), input)),
    201,
  );
});
