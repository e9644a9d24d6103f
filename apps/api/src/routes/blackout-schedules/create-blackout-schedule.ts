import { createBlackoutSchedule } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createBlackoutScheduleHandler = implement(createBlackoutSchedule, async (c) =>
  c.json(await c.get("services").blackoutSchedules.create(c.get("access"), c.req.valid("json")), 201),
);
