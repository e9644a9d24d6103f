import { getTopQueries } from "@dbmon/contract";
import { implement } from "../../http/operations.js";
import { presentTopQuery } from "../../metrics/present.js";

export const getTopQueriesHandler = implement(getTopQueries, async (c) => {
  const query = c.req.valid("query");
  const queries = await c.get("services").metrics.topQueries(c.get("access"), {
    connectionId: query.connection_id,
    limit: query.limit,
    orderBy: query.order_by,
    order: query.order,
    queryId: query.queryid,
    excludeCollector: query.exclude_collector,
  });
  return c.json(queries.map(presentTopQuery), 200);
});
