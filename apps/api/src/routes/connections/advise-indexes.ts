import { adviseIndexes } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const adviseIndexesHandler = implement(adviseIndexes, async (c) => {
  const body = c.req.valid("json");
  const advisor = c.get("services").indexAdvisor;
  const target = await advisor.target(
    c.get("access"),
    c.req.valid("param").id,
    body.database_name,
    c.req.raw.signal,
  );
  return c.json(await advisor.advise(target, body), 200);
});
