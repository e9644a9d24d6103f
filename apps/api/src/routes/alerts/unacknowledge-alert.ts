import { unacknowledgeAlert } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const unacknowledgeAlertHandler = implement(unacknowledgeAlert, async (c) => {
  await c.get("services").alerts.unacknowledge(c.get("access"), c.req.valid("query").alert_id);
  return c.json({ status: "active" }, 200);
});
