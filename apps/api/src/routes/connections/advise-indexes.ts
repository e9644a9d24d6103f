import { adviseIndexes } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const adviseIndexesHandler = implement(adviseIndexes, async (c) => {
  const body = c.req.valid("json");
  const { indexAdvisor } = c.get("services");
  const target = await indexAdvisor.target(c.get("access"), c.req.valid("param").id, body, c.req.raw.signal);
  return c.json(await indexAdvisor.advise(target, body), 200);
});
