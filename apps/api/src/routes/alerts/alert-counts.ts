import { alertCounts } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const alertCountsHandler = implement(alertCounts, async (c) =>
  c.json(await c.get("services").alerts.counts(c.get("access")), 200),
);
