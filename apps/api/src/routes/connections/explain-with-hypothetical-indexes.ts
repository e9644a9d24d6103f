import { explainWithHypotheticalIndexes } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const explainWithHypotheticalIndexesHandler = implement(explainWithHypotheticalIndexes, async (c) => {
  const body = c.req.valid("json");
  const advisor = c.get("services").indexAdvisor;
  const target = await advisor.target(
    c.get("access"),
    c.req.valid("param").id,
    body.database_name,
    c.req.raw.signal,
  );
  return c.json(await advisor.explainWithIndexes(target, body), 200);
});
