import { getTopQueries } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { required, requireReadable } from "../../metrics/request.js";

const MAX_LIMIT = 100;

export function registerGetTopQueries(app: App): void {
  app.openapi(guarded(getTopQueries, {}), async (c) => {
    const query = c.req.valid("query");
    const connectionId = required(query.connection_id, "connection_id");
    await requireReadable(c.get("access"), [connectionId]);
    const { sql } = c.get("services").datastore;
    const [table] = await sql<
      { ok: boolean }[]
    >`select to_regclass('metrics.pg_stat_statements') is not null as ok`;
    if (!table?.ok) {
      return c.json([], 200);
    }
    // The catalogue's columns only: order_by was checked against the contract's list.
    const orderBy = query.order_by ?? "total_exec_time";
    const direction = query.order === "asc" ? "asc" : "desc";
    const limit = Math.min(query.limit ?? 10, MAX_LIMIT);
    const excludeCollector = query.exclude_collector === "true";
    const rows = await sql.unsafe<Record<string, unknown>[]>(
      `with latest as (
         select s.* from metrics.pg_stat_statements s
         where s.connection_id = $1
           and s.collected_at = (select max(collected_at) from metrics.pg_stat_statements where connection_id = $1)
           and ($2::text is null or s.queryid = $2::bigint)
           and (not $3 or (s.query not like '%/* dbmon collector:%' and s.query not like '%ai_dba_wb_probe%'))
       ), per_query as (
         select queryid::text as queryid,
           (array_agg(database_name order by total_exec_time desc))[1] as database_name,
           (array_agg(query order by total_exec_time desc))[1] as query,
           sum(calls)::float8 as calls, sum(total_exec_time)::float8 as total_exec_time,
           (sum(total_exec_time) / nullif(sum(calls), 0))::float8 as mean_exec_time,
           sum(rows)::float8 as rows, sum(shared_blks_hit)::float8 as shared_blks_hit,
           sum(shared_blks_read)::float8 as shared_blks_read
         from latest group by queryid
       )
       select * from per_query order by "${orderBy}" ${direction} nulls last limit $4`,
      [connectionId, query.queryid ?? null, excludeCollector, limit],
    );
    return c.json(
      rows.map((row) => ({
        queryid: String(row.queryid),
        database_name: String(row.database_name),
        query: String(row.query ?? ""),
        calls: Number(row.calls ?? 0),
        total_exec_time: Number(row.total_exec_time ?? 0),
        mean_exec_time: Number(row.mean_exec_time ?? 0),
        rows: Number(row.rows ?? 0),
        shared_blks_hit: Number(row.shared_blks_hit ?? 0),
        shared_blks_read: Number(row.shared_blks_read ?? 0),
      })),
      200,
    );
  });
}
