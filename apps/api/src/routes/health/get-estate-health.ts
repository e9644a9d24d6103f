import { getEstateHealth } from "@dbmon/contract";
import { presentFleetHealth } from "../../health/present.js";
import { implement } from "../../http/operations.js";

export const getEstateHealthHandler = implement(getEstateHealth, async (c) =>
  c.json(presentFleetHealth(await c.get("services").health.fleet(c.get("access"), { kind: "estate" })), 200),
);
