import { createBlackout } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createBlackoutHandler = implement(createBlackout, async (c) =>
  c.json(await c.get("services").blackouts.create(c.get("access"), c.req.valid("json")), 201),
);
