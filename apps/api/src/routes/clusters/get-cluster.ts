import { getCluster } from "@dbmon/contract";
import { parseClusterRef } from "../../clusters/refs.js";
import { presentCluster } from "../../clusters/store.js";
import { refuseMethod } from "../../http/method-not-allowed.js";
import { implement } from "../../http/operations.js";

export const getClusterHandler = implement(getCluster, async (c) => {
  const ref = parseClusterRef(c.req.valid("param").id);
  if (ref.kind !== "stored") {
    // Auto-detected ids only name something to rename, move or dismiss.
    refuseMethod(["PUT", "DELETE"]);
  }
  const cluster = await c.get("services").clusters.cluster(c.get("access"), ref.id);
  return c.json(presentCluster(cluster), 200);
});
