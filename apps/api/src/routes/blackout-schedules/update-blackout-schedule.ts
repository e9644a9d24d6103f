import { updateBlackoutSchedule } from "@dbmon/contract";
import { presentSchedule, scheduleInputOf } from "../../alerting/schedules.js";
import { implement } from "../../http/operations.js";

export const updateBlackoutScheduleHandler = implement(updateBlackoutSchedule, async (c) => {
  const input = scheduleInputOf(c.req.valid("json"));
  const updated = await c
    .get("services")
    .blackoutSchedules.update(c.get("access"), c.req.valid("param").id, input);
  return c.json(presentSchedule(updated), 200);
});
