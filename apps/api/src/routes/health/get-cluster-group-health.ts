import { getClusterGroupHealth } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getClusterGroupHealthHandler = implement(getClusterGroupHealth, async (c) =>
  c.json(
    await c.get("services").health.fleet(c.get("access"), { kind: "group", id: c.req.valid("param").id }),
    200,
  ),
);
