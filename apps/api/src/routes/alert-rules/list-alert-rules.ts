import { listAlertRules } from "@dbmon/contract";
import { presentRule } from "../../alerting/rules.js";
import { implement } from "../../http/operations.js";

export const listAlertRulesHandler = implement(listAlertRules, async (c) =>
  c.json((await c.get("services").alertRules.list()).map(presentRule), 200),
);
