import { listBlackoutSchedules } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listBlackoutSchedulesHandler = implement(listBlackoutSchedules, async (c) =>
  c.json(await c.get("services").blackoutSchedules.list(c.get("access"), c.req.valid("query")), 200),
);
