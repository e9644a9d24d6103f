import { getClusterGroupHealth } from "@dbmon/contract";
import { presentFleetHealth } from "../../health/present.js";
import { implement } from "../../http/operations.js";

export const getClusterGroupHealthHandler = implement(getClusterGroupHealth, async (c) =>
  c.json(
    presentFleetHealth(
      await c.get("services").health.fleet(c.get("access"), { kind: "group", id: c.req.valid("param").id }),
    ),
    200,
  ),
);
