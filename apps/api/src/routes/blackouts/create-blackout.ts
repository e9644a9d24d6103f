import { createBlackout } from "@dbmon/contract";
import { presentBlackout, scopeChoiceOf } from "../../alerting/blackouts.js";
import { timeField } from "../../alerting/time.js";
import { implement } from "../../http/operations.js";

export const createBlackoutHandler = implement(createBlackout, async (c) => {
  const body = c.req.valid("json");
  const input = {
    ...scopeChoiceOf(body),
    reason: body.reason,
    start: timeField(body.start_time, "start_time"),
    end: timeField(body.end_time, "end_time"),
  };
  return c.json(presentBlackout(await c.get("services").blackouts.create(c.get("access"), input)), 201);
});
