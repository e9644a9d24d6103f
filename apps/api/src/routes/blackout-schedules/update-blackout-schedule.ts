import { updateBlackoutSchedule } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const updateBlackoutScheduleHandler = implement(updateBlackoutSchedule, async (c) =>
  c.json(
    await c
      .get("services")
      .blackoutSchedules.update(c.get("access"), c.req.valid("param").id, c.req.valid("json")),
    200,
  ),
);
