import { getOverview } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getOverviewHandler = implement(getOverview, async (c) => {
  return c.json(await c.get("services").overview.get(c.get("access"), c.req.valid("query")), 200);
});
