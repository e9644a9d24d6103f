import { acknowledgeAlert } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const acknowledgeAlertHandler = implement(acknowledgeAlert, async (c) => {
  const body = c.req.valid("json");
  await c.get("services").alerts.acknowledge(c.get("access"), body.alert_id, {
    message: body.message,
    falsePositive: body.false_positive,
  });
  return c.json({ status: "acknowledged" }, 200);
});
