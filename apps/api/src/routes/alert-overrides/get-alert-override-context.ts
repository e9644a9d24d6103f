import { getAlertOverrideContext } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getAlertOverrideContextHandler = implement(getAlertOverrideContext, async (c) => {
  const { connectionId, ruleId } = c.req.valid("param");
  return c.json(await c.get("services").alertOverrides.context(c.get("access"), connectionId, ruleId), 200);
});
