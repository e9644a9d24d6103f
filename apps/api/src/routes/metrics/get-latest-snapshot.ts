import { getLatestSnapshot } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentLatestSnapshot } from "../../metrics/present.js";
import { excludedSchemas } from "../../metrics/request.js";

export const getLatestSnapshotHandler = implement(getLatestSnapshot, async (c) => {
  const query = c.req.valid("query");
  const snapshot = await c.get("services").metrics.latestSnapshot(c.get("access"), {
    connectionId: query.connection_id,
    probeName: query.probe_name,
    databaseName: query.database_name,
    excludeSchemas: excludedSchemas(query.exclude_schemas),
    orderBy: query.order_by,
    order: query.order,
    limit: query.limit,
  });
  return c.json(presentLatestSnapshot(snapshot), 200);
});
