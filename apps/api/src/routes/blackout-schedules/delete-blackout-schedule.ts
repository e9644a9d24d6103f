import { deleteBlackoutSchedule } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const deleteBlackoutScheduleHandler = implement(deleteBlackoutSchedule, async (c) => {
  await c.get("services").blackoutSchedules.remove(c.get("access"), c.req.valid("param").id);
  return c.json({ status: "deleted" }, 200);
});
