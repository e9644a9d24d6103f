import { getClusterTopology } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getClusterTopologyHandler = implement(getClusterTopology, async (c) => {
  return c.json(await c.get("services").clusters.topology(c.get("access")), 200);
});
