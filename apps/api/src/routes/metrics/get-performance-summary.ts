import { getPerformanceSummary } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import {
  isoFromEpoch,
  requestedConnections,
  requireReadable,
  round,
  summaryWindow,
} from "../../metrics/request.js";
import { bucketAverages, databaseTotals, hitRatio, transactionRates } from "../../metrics/snapshots.js";

const XID_LIMIT = 2_147_483_647;

export function registerGetPerformanceSummary(app: App): void {
  app.openapi(guarded(getPerformanceSummary, {}), async (c) => {
    const query = c.req.valid("query");
    const ids = requestedConnections(query);
    await requireReadable(c.get("access"), ids);
    const { datastore, clock } = c.get("services");
    const { sql } = datastore;
    const { start, width } = summaryWindow(clock.now(), query.time_range);
    const [tables] = await sql<{ database: boolean; checkpointer: boolean }[]>`
      select to_regclass('metrics.pg_database') is not null as database,
        to_regclass('metrics.pg_stat_checkpointer') is not null as checkpointer`;
    const [names, totals, ages, checkpoints] = await Promise.all([
      sql<{ id: number; name: string }[]>`select id, name from connections where id = any(${ids}::int[])`,
      databaseTotals(sql, ids, start - width, false),
      tables?.database
        ? sql<{ connection_id: number; database_name: string; age: number }[]>`
            select d.connection_id, d.datname as database_name, d.age_datfrozenxid::float8 as age
            from metrics.pg_database d
            where d.connection_id = any(${ids}::int[]) and not d.datistemplate
              and d.collected_at = (select max(collected_at) from metrics.pg_database l where l.connection_id = d.connection_id)
            order by d.age_datfrozenxid desc`
        : [],
      tables?.checkpointer
        ? sql<{ connection_id: number; at: number; write_time: number | null; sync_time: number | null }[]>`
            select connection_id, extract(epoch from collected_at)::float8 as at, write_time, sync_time
            from metrics.pg_stat_checkpointer
            where connection_id = any(${ids}::int[]) and collected_at >= to_timestamp(${start - width})
            order by connection_id, collected_at`
        : [],
    ]);
    const connections = ids.map((id) => {
      const mine = totals.filter((row) => row.connection_id === id);
      const latest = mine.at(-1);
      const inRange = mine.filter((row) => row.at >= start);
      const rates = transactionRates(mine).filter((rate) => rate.at >= start);
      const rateBuckets = bucketAverages(
        rates,
        (rate) => rate.at,
        (rate) => [
          rate.commitsPerSec,
          rate.commits + rate.rollbacks > 0 ? (rate.rollbacks / (rate.commits + rate.rollbacks)) * 100 : 0,
        ],
        start,
        width,
      );
      const ratioBuckets = bucketAverages(
        inRange.filter((row) => hitRatio(row) !== null),
        (row) => row.at,
        (row) => [hitRatio(row) as number],
        start,
        width,
      );
      const cp = checkpoints.filter((row) => row.connection_id === id);
      const cpDeltas = cp.slice(1).flatMap((row, index) => {
        const previous = cp[index] as (typeof cp)[number];
        const write = Number(row.write_time ?? 0) - Number(previous.write_time ?? 0);
        const sync = Number(row.sync_time ?? 0) - Number(previous.sync_time ?? 0);
        return row.at >= start && write >= 0 && sync >= 0 ? [{ at: row.at, write, sync }] : [];
      });
      const cpBuckets = bucketAverages(
        cpDeltas,
        (d) => d.at,
        (d) => [d.write, d.sync],
        start,
        width,
      );
      const lastRate = rateBuckets.at(-1);
      return {
        connection_id: id,
        connection_name: names.find((row) => row.id === id)?.name ?? "",
        xid_age: ages
          .filter((row) => row.connection_id === id)
          .map((row) => ({
            database_name: row.database_name,
            age: Number(row.age),
            percent: round((Number(row.age) / XID_LIMIT) * 100, 2) ?? 0,
          })),
        cache_hit_ratio: {
          current: latest ? round(hitRatio(latest), 2) : null,
          time_series: ratioBuckets.map((b) => ({
            time: isoFromEpoch(b.time),
            value: round(b.values[0] ?? 0, 2) ?? 0,
          })),
        },
        transactions: {
          commits_per_sec: lastRate ? round(lastRate.values[0] ?? 0, 1) : null,
          rollback_percent: lastRate ? round(lastRate.values[1] ?? 0, 1) : null,
          time_series: rateBuckets.map((b) => ({
            time: isoFromEpoch(b.time),
            commits_per_sec: round(b.values[0] ?? 0, 1) ?? 0,
            rollback_percent: round(b.values[1] ?? 0, 1) ?? 0,
          })),
        },
        checkpoints: {
          time_series: cpBuckets.map((b) => ({
            time: isoFromEpoch(b.time),
            write_time_ms: round(b.values[0] ?? 0, 1) ?? 0,
            sync_time_ms: round(b.values[1] ?? 0, 1) ?? 0,
          })),
        },
      };
    });
    if (connections.length <= 1) {
      return c.json({ time_range: query.time_range, connections }, 200);
    }
    const ratios = connections.flatMap((conn) =>
      conn.cache_hit_ratio.current === null ? [] : [conn.cache_hit_ratio.current],
    );
    const withRates = connections.filter((conn) => conn.transactions.commits_per_sec !== null);
    const commits = withRates.reduce((sum, conn) => sum + (conn.transactions.commits_per_sec ?? 0), 0);
    const weighted = withRates.reduce(
      (sum, conn) =>
        sum + (conn.transactions.commits_per_sec ?? 0) * (conn.transactions.rollback_percent ?? 0),
      0,
    );
    return c.json(
      {
        time_range: query.time_range,
        connections,
        aggregate: {
          cache_hit_ratio: ratios.length ? round(ratios.reduce((a, b) => a + b, 0) / ratios.length, 2) : null,
          commits_per_sec: withRates.length ? round(commits, 1) : null,
          rollback_percent: withRates.length ? round(commits > 0 ? weighted / commits : 0, 1) : null,
        },
      },
      200,
    );
  });
}
