import { listBlackouts } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listBlackoutsHandler = implement(listBlackouts, async (c) =>
  c.json(await c.get("services").blackouts.list(c.get("access"), c.req.valid("query")), 200),
);
