import { listAlerts } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listAlertsHandler = implement(listAlerts, async (c) =>
  c.json(await c.get("services").alerts.list(c.get("access"), c.req.valid("query")), 200),
);
