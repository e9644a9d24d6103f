import { updateBlackout } from "@dbmon/contract";
import { presentBlackout } from "../../alerting/blackouts.js";
import { timeField } from "../../alerting/time.js";
import { implement } from "../../http/operations.js";

export const updateBlackoutHandler = implement(updateBlackout, async (c) => {
  const body = c.req.valid("json");
  const change = {
    reason: body.reason,
    end: body.end_time === undefined ? undefined : timeField(body.end_time, "end_time"),
  };
  const updated = await c.get("services").blackouts.update(c.get("access"), c.req.valid("param").id, change);
  return c.json(presentBlackout(updated), 200);
});
