import { getLatestSnapshot } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getLatestSnapshotHandler = implement(getLatestSnapshot, async (c) => {
  return c.json(await c.get("services").metrics.latestSnapshot(c.get("access"), c.req.valid("query")), 200);
});
