import { getBlackoutSchedule } from "@dbmon/contract";
import { presentSchedule } from "../../alerting/schedules.js";
import { implement } from "../../http/operations.js";

export const getBlackoutScheduleHandler = implement(getBlackoutSchedule, async (c) =>
  c.json(
    presentSchedule(await c.get("services").blackoutSchedules.get(c.get("access"), c.req.valid("param").id)),
    200,
  ),
);
