import { getConnectionHealth } from "@dbmon/contract";
import { presentConnectionHealth } from "../../health/present.js";
import { implement } from "../../http/operations.js";

export const getConnectionHealthHandler = implement(getConnectionHealth, async (c) =>
  c.json(presentConnectionHealth(await c.get("services").health.connection(c.req.valid("param").id)), 200),
);
