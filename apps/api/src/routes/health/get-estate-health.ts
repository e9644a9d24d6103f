import { getEstateHealth } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getEstateHealthHandler = implement(getEstateHealth, async (c) =>
  c.json(await c.get("services").health.fleet(c.get("access"), { kind: "estate" }), 200),
);
