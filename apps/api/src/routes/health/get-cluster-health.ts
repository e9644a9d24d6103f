import { getClusterHealth } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getClusterHealthHandler = implement(getClusterHealth, async (c) =>
  c.json(
    await c.get("services").health.fleet(c.get("access"), { kind: "cluster", id: c.req.valid("param").id }),
    200,
  ),
);
