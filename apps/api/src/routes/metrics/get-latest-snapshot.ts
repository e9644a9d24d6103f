import { getLatestSnapshot } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentLatestSnapshot } from "../../metrics/present.js";
import { excludedSchemas, required } from "../../metrics/request.js";

export const getLatestSnapshotHandler = implement(getLatestSnapshot, async (c) => {
  const query = c.req.valid("query");
  const snapshot = await c.get("services").metrics.latestSnapshot(c.get("access"), {
    connectionId: required(query.connection_id, "connection_id"),
    probeName: required(query.probe_name, "probe_name"),
    databaseName: query.database_name,
    excludeSchemas: excludedSchemas(query.exclude_schemas),
    orderBy: query.order_by,
    order: query.order,
    limit: query.limit,
  });
  return c.json(presentLatestSnapshot(snapshot), 200);
});
