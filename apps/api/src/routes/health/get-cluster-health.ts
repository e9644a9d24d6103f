import { getClusterHealth } from "@dbmon/contract";
import { presentFleetHealth } from "../../health/present.js";
import { implement } from "../../http/operations.js";

export const getClusterHealthHandler = implement(getClusterHealth, async (c) =>
  c.json(
    presentFleetHealth(
      await c.get("services").health.fleet(c.get("access"), { kind: "cluster", id: c.req.valid("param").id }),
    ),
    200,
  ),
);
