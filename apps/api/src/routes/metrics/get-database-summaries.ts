import { getDatabaseSummaries } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import { isoFromEpoch, requireReadable, round, summaryWindow } from "../../metrics/request.js";
import { bucketAverages, databaseTotals, hitRatio, transactionRates } from "../../metrics/snapshots.js";

export function registerGetDatabaseSummaries(app: App): void {
  app.openapi(guarded(getDatabaseSummaries, {}), async (c) => {
    const query = c.req.valid("query");
    const ids = query.connection_ids ?? (query.connection_id === undefined ? [] : [query.connection_id]);
    const [connectionId] = ids;
    if (ids.length !== 1 || connectionId === undefined) {
      throw new ApiError(400, "Exactly one connection_id is required");
    }
    await requireReadable(c.get("access"), [connectionId]);
    const { datastore, clock } = c.get("services");
    const { sql } = datastore;
    const { start, width } = summaryWindow(clock.now(), query.time_range);
    const [tables] = await sql<{ database: boolean; tables: boolean }[]>`
      select to_regclass('metrics.pg_database') is not null as database,
        to_regclass('metrics.pg_stat_all_tables') is not null as tables`;
    const [totals, sizes, dead] = await Promise.all([
      databaseTotals(sql, [connectionId], start, true),
      tables?.database
        ? sql<{ datname: string; size: number | null; pretty: string | null }[]>`
            select d.datname, d.database_size_bytes::float8 as size, pg_size_pretty(d.database_size_bytes) as pretty
            from metrics.pg_database d
            where d.connection_id = ${connectionId}
              and d.collected_at = (select max(collected_at) from metrics.pg_database where connection_id = ${connectionId})`
        : [],
      tables?.tables
        ? sql<{ database_name: string; ratio: number | null }[]>`
            select t.database_name,
              (100.0 * sum(t.n_dead_tup) / nullif(sum(t.n_live_tup) + sum(t.n_dead_tup), 0))::float8 as ratio
            from metrics.pg_stat_all_tables t
            join (select database_name, max(collected_at) as at from metrics.pg_stat_all_tables
                  where connection_id = ${connectionId} group by database_name) latest
              on latest.database_name = t.database_name and latest.at = t.collected_at
            where t.connection_id = ${connectionId}
            group by t.database_name`
        : [],
    ]);
    const names = [...new Set(totals.map((row) => row.database_name as string))];
    const databases = names.map((name) => {
      const mine = totals.filter((row) => row.database_name === name);
      const latest = mine.at(-1);
      const size = sizes.find((row) => row.datname === name);
      const rates = transactionRates(mine.slice(-2));
      const series = bucketAverages(
        mine.filter((row) => hitRatio(row) !== null),
        (row) => row.at,
        (row) => [hitRatio(row) as number],
        start,
        width,
      );
      return {
        database_name: name,
        size_bytes: size?.size === undefined || size.size === null ? null : Number(size.size),
        size_pretty: size?.pretty ?? null,
        cache_hit_ratio: {
          current: latest ? round(hitRatio(latest), 2) : null,
          time_series: series.map((b) => ({
            time: isoFromEpoch(b.time),
            value: round(b.values[0] ?? 0, 2) ?? 0,
          })),
        },
        transaction_rate: rates[0] ? round(rates[0].commitsPerSec, 1) : null,
        dead_tuple_ratio: round(dead.find((row) => row.database_name === name)?.ratio ?? null, 2),
        active_connections: latest ? latest.numbackends : null,
      };
    });
    return c.json({ connection_id: connectionId, time_range: query.time_range, databases }, 200);
  });
}
