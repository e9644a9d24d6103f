import { getBlackoutSchedule } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getBlackoutScheduleHandler = implement(getBlackoutSchedule, async (c) =>
  c.json(await c.get("services").blackoutSchedules.get(c.get("access"), c.req.valid("param").id), 200),
);
