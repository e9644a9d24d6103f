import type { TIME_RANGES, TOP_QUERY_ORDERS } from "@dbmon/contract";
import { type Datastore, databaseSources, readsDatabaseRow, schema } from "@dbmon/datastore";
import { probeRunsTable, rowSources, SYSTEM_SCHEMAS, sourceRowCondition } from "@dbmon/monitoring";
import { and, count, eq } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import type { Clock } from "../clock.js";
import { InvalidInput } from "../errors.js";
import { type Page, withTotal } from "../paging.js";
import {
  catalogueProbe,
  dimensionColumns,
  metricColumns,
  numericValue,
  probeTable,
  probeTableExists,
  quoted,
  requestedMetrics,
} from "./catalogue.js";
import { dateFromEpoch, RANGE_SECONDS, requireReadable, round, summaryWindow } from "./request.js";
import { type Aggregation, querySeries, type Series } from "./series.js";
import {
  bucketAverages,
  collectionTotals,
  databaseSamples,
  hitRatio,
  transactionRates,
} from "./snapshots.js";

export type TimeRange = (typeof TIME_RANGES)[number];

/** Which series to read: a probe's numeric columns (all, or `metrics`) on connections, over a window ending now. */
export interface SeriesRequest {
  probeName: string;
  connectionIds: readonly number[];
  range: TimeRange;
  buckets: number;
  aggregation: Aggregation;
  /** Columns, by name or as `<probe>.<column>`; absent or empty: every numeric column. */
  metrics?: readonly string[] | undefined;
  databaseName?: string | undefined;
  schemaName?: string | undefined;
  tableName?: string | undefined;
}

/** Whose baselines to compute: a probe's numeric columns (all, or `metrics`) on one connection. */
export interface BaselinesRequest {
  connectionId: number;
  probeName: string;
  /** Columns, by name or as `<probe>.<column>`; absent or empty: every numeric column. */
  metrics?: readonly string[] | undefined;
}

/** Whose summary to compute: connections over a range ending now. */
export interface SummaryRequest {
  connectionIds: readonly number[];
  range: TimeRange;
}

/** Which queries of a connection's latest pg_stat_statements collection to list, and in what order. */
export interface TopQueriesRequest {
  connectionId: number;
  /** At most 100; 10 when absent. */
  limit?: number | undefined;
  /** total_exec_time when absent. */
  orderBy?: (typeof TOP_QUERY_ORDERS)[number] | undefined;
  /** desc when absent. */
  order?: "asc" | "desc" | undefined;
  /** One query only. */
  queryId?: string | undefined;
  /** Leave out the statements of dbmon's (and the reference's) collectors. */
  excludeCollector?: boolean | undefined;
}

/** Which rows of a probe's latest collection on a connection to list, and in what order. */
export interface LatestSnapshotRequest {
  connectionId: number;
  probeName: string;
  databaseName?: string | undefined;
  /** Schemas whose rows to leave out; pg_catalog, information_schema and pg_toast when absent. */
  excludeSchemas?: readonly string[] | undefined;
  /** A column of the probe's output; its first dimension when absent. */
  orderBy?: string | undefined;
  /** desc when absent. */
  order?: "asc" | "desc" | undefined;
  /** At most 100; 20 when absent. */
  limit?: number | undefined;
}

/** Statistics of one numeric column of a probe over a window. */
export interface Baseline {
  /** `<probe>.<column>`. */
  metric: string;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  p50: number;
  p95: number;
  p99: number;
  sampleCount: number;
}

/** One series' baseline as the alerter stored it. */
export interface StoredBaseline {
  metricName: string;
  databaseName: string | null;
  objectName: string | null;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  sampleCount: number;
  lastSampleAt: Date;
}

/** A value of a summary's series: the average over the step starting at `time`. */
export interface TimedValue {
  time: Date;
  value: number;
}

/** A cache hit ratio (percent, 2 decimals): the latest collection's, and its series. */
export interface CacheHitRatio {
  current: number | null;
  series: TimedValue[];
}

/** The performance of one connection over a summary's range (rates 1 decimal, percents 2). */
export interface ConnectionPerformance {
  connectionId: number;
  connectionName: string;
  /** Each database's transaction ID age, oldest first, and its share of the wraparound limit. */
  xidAges: { databaseName: string; age: number; percent: number }[];
  cacheHitRatio: CacheHitRatio;
  transactions: {
    /** The last step's rates; null before a second collection. */
    commitsPerSec: number | null;
    rollbackPercent: number | null;
    series: { time: Date; commitsPerSec: number; rollbackPercent: number }[];
  };
  checkpoints: { time: Date; writeTimeMs: number; syncTimeMs: number }[];
}

export interface PerformanceSummary {
  range: TimeRange;
  connections: ConnectionPerformance[];
  /** Over all the connections (the one connection's figures for one). */
  aggregate: { cacheHitRatio: number | null; commitsPerSec: number | null; rollbackPercent: number | null };
}

/** One database of a connection as of its latest collection. */
export interface DatabaseSummary {
  databaseName: string;
  sizeBytes: number | null;
  sizePretty: string | null;
  cacheHitRatio: CacheHitRatio;
  /** Commits per second; 0 before a second collection. */
  transactionRate: number;
  /** Percent of dead tuples. */
  deadTupleRatio: number | null;
  activeConnections: number | null;
}

export interface DatabaseSummaries {
  connectionId: number;
  range: TimeRange;
  databases: DatabaseSummary[];
}

/** One queryid of a pg_stat_statements collection, summed over its rows. */
export interface TopQuery {
  queryId: string;
  databaseName: string;
  query: string;
  calls: number;
  totalExecTime: number;
  meanExecTime: number;
  rows: number;
  sharedBlksHit: number;
  sharedBlksRead: number;
}

/** A page of a probe's latest rows (by the probe's own column names) and how many there are. */
export interface LatestSnapshot {
  rows: Record<string, unknown>[];
  total: number;
}

const BASELINE_LOOKBACK_DAYS = 7;
const XID_LIMIT = 2_147_483_647;
const MAX_ROWS = 100;

/**
 * Collected metrics as the API serves them: series, baselines, summaries, top queries and the
 * latest snapshot of a probe. Every read needs read access to each connection it names.
 */
export class MetricsReader {
  constructor(private readonly deps: { datastore: Datastore; clock: Clock }) {}

  /** Time-bucketed series of a probe's numeric columns, one per metric and connection. */
  async series(access: RequestAccess, request: SeriesRequest): Promise<Series[]> {
    const probe = catalogueProbe(request.probeName, (name) => `probe "${name}" not found`);
    const metrics = requestedMetrics(probe, request.metrics);
    await requireReadable(access, request.connectionIds);
    const { datastore, clock } = this.deps;
    if (metrics.length === 0 || !(await probeTableExists(datastore.sql, probe))) {
      return [];
    }
    return querySeries(datastore.sql, {
      probe,
      metrics,
      connectionIds: request.connectionIds,
      rangeSeconds: RANGE_SECONDS[request.range],
      buckets: request.buckets,
      aggregation: request.aggregation,
      now: clock.now(),
      databaseName: request.databaseName,
      schemaName: request.schemaName,
      tableName: request.tableName,
    });
  }

  /** Statistics of each numeric column of a probe over the connection's last 7 days. */
  async baselines(access: RequestAccess, request: BaselinesRequest): Promise<Baseline[]> {
    const { connectionId } = request;
    const probe = catalogueProbe(request.probeName, (name) => `probe "${name}" not found`);
    await requireReadable(access, [connectionId]);
    const { datastore, clock } = this.deps;
    const wanted = request.metrics ?? [];
    const columns = metricColumns(probe).filter(
      (column) =>
        wanted.length === 0 ||
        wanted.includes(`${probe.name}.${column.name}`) ||
        wanted.includes(column.name),
    );
    if (columns.length === 0 || !(await probeTableExists(datastore.sql, probe))) {
      return [];
    }
    // One pass over the window: every column's statistics side by side.
    const stats = columns.map((column, index) => {
      const value = numericValue(column);
      return `avg(${value}) as mean${index}, stddev_pop(${value}) as stddev${index}, min(${value}) as min${index},
        max(${value}) as max${index}, count(${value})::int as n${index},
        percentile_cont(array[0.5, 0.95, 0.99]) within group (order by ${value}) as p${index}`;
    });
    const now = clock.now();
    const [row] = await datastore.sql.unsafe<Record<string, unknown>[]>(
      `select ${stats.join(",\n")} from ${rowSources(probe, "array[$1::int]")} s
       join ${probeTable(probe)} r on r.connection_id = s.source_id and ${sourceRowCondition(probe, "r", "s")}
       where r.collected_at >= $2::timestamptz - make_interval(days => ${BASELINE_LOOKBACK_DAYS})
         and r.collected_at <= $2::timestamptz`,
      [connectionId, now.toISOString()],
    );
    return columns.flatMap((column, index) => {
      const count = Number(row?.[`n${index}`] ?? 0);
      if (!row || count === 0) {
        return [];
      }
      const percentiles = (row[`p${index}`] as (number | string)[]).map(Number);
      return [
        {
          metric: `${probe.name}.${column.name}`,
          mean: Number(row[`mean${index}`]),
          stddev: Number(row[`stddev${index}`] ?? 0),
          min: Number(row[`min${index}`]),
          max: Number(row[`max${index}`]),
          p50: percentiles[0] ?? 0,
          p95: percentiles[1] ?? 0,
          p99: percentiles[2] ?? 0,
          sampleCount: count,
        },
      ];
    });
  }

  /**
   * The anomaly baselines the alerter keeps for a connection (period "all": every collected hour of
   * its window), one per series, by metric: one page, paged in SQL, and the total of them.
   */
  async storedBaselines(
    access: RequestAccess,
    connectionId: number,
    { limit, offset }: Page,
  ): Promise<{ baselines: StoredBaseline[]; total: number }> {
    await requireReadable(access, [connectionId]);
    const { db } = this.deps.datastore;
    const { metricBaselines: stored } = schema;
    const where = and(eq(stored.connectionId, connectionId), eq(stored.period, "all"));
    const { rows, total } = await withTotal(
      db
        .select({
          metricName: stored.metricName,
          databaseName: stored.databaseName,
          objectName: stored.objectName,
          mean: stored.mean,
          stddev: stored.stddev,
          min: stored.min,
          max: stored.max,
          sampleCount: stored.sampleCount,
          lastSampleAt: stored.lastSampleAt,
        })
        .from(stored)
        .where(where)
        .orderBy(stored.metricName, stored.databaseName, stored.objectName)
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(stored).where(where),
    );
    // The table keeps '' for a series without a database or object.
    const baselines = rows.map((row) => ({
      ...row,
      databaseName: row.databaseName || null,
      objectName: row.objectName || null,
    }));
    return { baselines, total };
  }

  /** Transaction ID age, cache hit ratio, transaction rates and checkpoint times per connection. */
  async performanceSummary(access: RequestAccess, request: SummaryRequest): Promise<PerformanceSummary> {
    const ids = [...request.connectionIds];
    await requireReadable(access, ids);
    const { datastore, clock } = this.deps;
    const { sql } = datastore;
    const { start, width } = summaryWindow(clock.now(), request.range);
    const [tables] = await sql<{ database: boolean; checkpointer: boolean }[]>`
      select to_regclass('metrics.pg_database') is not null as database,
        to_regclass('metrics.pg_stat_checkpointer') is not null as checkpointer`;
    const [names, samples, ages, checkpoints] = await Promise.all([
      sql<{ id: number; name: string }[]>`select id, name from connections where id = any(${ids}::int[])`,
      databaseSamples(sql, ids, start - width),
      tables?.database
        ? sql<{ connection_id: number; database_name: string; age: number }[]>`
            select c.connection_id, d.datname as database_name, d.age_datfrozenxid::float8 as age
            from dbmon_connection_servers c
            join metrics.pg_database d on d.connection_id = c.server_connection_id
            where c.connection_id = any(${ids}::int[]) and not d.datistemplate
              and d.collected_at = (select max(collected_at) from metrics.pg_database l where l.connection_id = d.connection_id)
            order by d.age_datfrozenxid desc`
        : [],
      tables?.checkpointer
        ? sql<{ connection_id: number; at: number; write_time: number | null; sync_time: number | null }[]>`
            select c.connection_id, extract(epoch from k.collected_at)::float8 as at, k.write_time, k.sync_time
            from dbmon_connection_servers c
            join metrics.pg_stat_checkpointer k on k.connection_id = c.server_connection_id
            where c.connection_id = any(${ids}::int[]) and k.collected_at >= to_timestamp(${start - width})
            order by c.connection_id, k.collected_at`
        : [],
    ]);
    const connections = ids.map((id) => {
      const perDatabase = samples.filter((row) => row.connection_id === id);
      const mine = collectionTotals(perDatabase);
      const latest = mine.at(-1);
      const inRange = mine.filter((row) => row.at >= start);
      const rates = transactionRates(perDatabase).filter((rate) => rate.at >= start);
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
        connectionId: id,
        connectionName: names.find((row) => row.id === id)?.name ?? "",
        xidAges: ages
          .filter((row) => row.connection_id === id)
          .map((row) => ({
            databaseName: row.database_name,
            age: Number(row.age),
            percent: round((Number(row.age) / XID_LIMIT) * 100, 2) ?? 0,
          })),
        cacheHitRatio: {
          current: latest ? round(hitRatio(latest), 2) : null,
          series: ratioBuckets.map((b) => ({
            time: dateFromEpoch(b.time),
            value: round(b.values[0] ?? 0, 2) ?? 0,
          })),
        },
        transactions: {
          commitsPerSec: lastRate ? round(lastRate.values[0] ?? 0, 1) : null,
          rollbackPercent: lastRate ? round(lastRate.values[1] ?? 0, 1) : null,
          series: rateBuckets.map((b) => ({
            time: dateFromEpoch(b.time),
            commitsPerSec: round(b.values[0] ?? 0, 1) ?? 0,
            rollbackPercent: round(b.values[1] ?? 0, 1) ?? 0,
          })),
        },
        checkpoints: cpBuckets.map((b) => ({
          time: dateFromEpoch(b.time),
          writeTimeMs: round(b.values[0] ?? 0, 1) ?? 0,
          syncTimeMs: round(b.values[1] ?? 0, 1) ?? 0,
        })),
      };
    });
    // Always present, over one connection too: the reference web client's dashboards read it.
    const ratios = connections.flatMap((conn) =>
      conn.cacheHitRatio.current === null ? [] : [conn.cacheHitRatio.current],
    );
    const withRates = connections.filter((conn) => conn.transactions.commitsPerSec !== null);
    const commits = withRates.reduce((sum, conn) => sum + (conn.transactions.commitsPerSec ?? 0), 0);
    const weighted = withRates.reduce(
      (sum, conn) => sum + (conn.transactions.commitsPerSec ?? 0) * (conn.transactions.rollbackPercent ?? 0),
      0,
    );
    return {
      range: request.range,
      connections,
      aggregate: {
        cacheHitRatio: ratios.length ? round(ratios.reduce((a, b) => a + b, 0) / ratios.length, 2) : null,
        commitsPerSec: withRates.length ? round(commits, 1) : null,
        rollbackPercent: withRates.length ? round(commits > 0 ? weighted / commits : 0, 1) : null,
      },
    };
  }

  /** Size, cache hit ratio, commit rate, dead tuples and backends of each database of one connection. */
  async databaseSummaries(
    access: RequestAccess,
    { connectionId, range }: { connectionId: number; range: TimeRange },
  ): Promise<DatabaseSummaries> {
    await requireReadable(access, [connectionId]);
    const { datastore, clock } = this.deps;
    const { sql } = datastore;
    const { start, width } = summaryWindow(clock.now(), range);
    const [tables] = await sql<{ database: boolean; tables: boolean }[]>`
      select to_regclass('metrics.pg_database') is not null as database,
        to_regclass('metrics.pg_stat_all_tables') is not null as tables`;
    const [samples, sizes, dead] = await Promise.all([
      databaseSamples(sql, [connectionId], start),
      tables?.database
        ? sql<{ datname: string; size: number | null; pretty: string | null }[]>`
            select d.datname, d.database_size_bytes::float8 as size, pg_size_pretty(d.database_size_bytes) as pretty
            from metrics.pg_database d
            where d.connection_id = dbmon_server_connection(${connectionId})
              and d.collected_at = (select max(collected_at) from metrics.pg_database
                                    where connection_id = dbmon_server_connection(${connectionId}))`
        : [],
      tables?.tables
        ? sql.unsafe<{ database_name: string; ratio: number | null }[]>(
            `select t.database_name,
              (100.0 * sum(t.n_dead_tup) / nullif(sum(t.n_live_tup) + sum(t.n_dead_tup), 0))::float8 as ratio
            from ${databaseSources("array[$1::int]")} source
            cross join lateral (select database_name, max(collected_at) as at from ${probeRunsTable("pg_stat_all_tables")}
                  where connection_id = source.source_id group by database_name) latest
            join metrics.pg_stat_all_tables t on t.connection_id = source.source_id
              and latest.database_name = t.database_name and latest.at = t.collected_at
            where ${readsDatabaseRow("t", "source")}
            group by t.database_name`,
            [connectionId],
          )
        : [],
    ]);
    // The databases of the latest collection of each connection collecting some: one dropped since
    // is no longer listed.
    const latestAt = new Map<number, number>();
    for (const row of samples) {
      latestAt.set(row.source_id, Math.max(row.at, latestAt.get(row.source_id) ?? row.at));
    }
    const names = samples
      .filter((row) => row.at === latestAt.get(row.source_id))
      .map((row) => row.database_name);
    const databases = names.map((name) => {
      const mine = samples.filter((row) => row.database_name === name);
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
        databaseName: name,
        sizeBytes: size?.size === undefined || size.size === null ? null : Number(size.size),
        sizePretty: size?.pretty ?? null,
        cacheHitRatio: {
          current: latest ? round(hitRatio(latest), 2) : null,
          series: series.map((b) => ({
            time: dateFromEpoch(b.time),
            value: round(b.values[0] ?? 0, 2) ?? 0,
          })),
        },
        // 0 until a second sample gives a rate, as the reference answers.
        transactionRate: rates[0] ? (round(rates[0].commitsPerSec, 1) ?? 0) : 0,
        deadTupleRatio: round(dead.find((row) => row.database_name === name)?.ratio ?? null, 2),
        activeConnections: latest ? latest.numbackends : null,
      };
    });
    return { connectionId, range, databases };
  }

  /** The latest pg_stat_statements collection of a connection, one row per queryid. */
  async topQueries(access: RequestAccess, request: TopQueriesRequest): Promise<TopQuery[]> {
    const { connectionId } = request;
    await requireReadable(access, [connectionId]);
    const { sql } = this.deps.datastore;
    const [table] = await sql<
      { ok: boolean }[]
    >`select to_regclass('metrics.pg_stat_statements') is not null as ok`;
    if (!table?.ok) {
      return [];
    }
    // The catalogue's columns only: order_by was checked against the contract's list.
    const orderBy = request.orderBy ?? "total_exec_time";
    const direction = request.order === "asc" ? "asc" : "desc";
    const limit = Math.min(request.limit ?? 10, MAX_ROWS);
    const excludeCollector = request.excludeCollector === true;
    const rows = await sql.unsafe<Record<string, unknown>[]>(
      `with latest as (
         select s.* from ${databaseSources("array[$1::int]")} source
         join metrics.pg_stat_statements s on s.connection_id = source.source_id
           and s.collected_at = (select max(collected_at) from ${probeRunsTable("pg_stat_statements")}
                                 where connection_id = source.source_id)
         where ${readsDatabaseRow("s", "source")}
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
      [connectionId, request.queryId ?? null, excludeCollector, limit],
    );
    return rows.map((row) => ({
      queryId: String(row.queryid),
      databaseName: String(row.database_name),
      query: String(row.query ?? ""),
      calls: Number(row.calls ?? 0),
      totalExecTime: Number(row.total_exec_time ?? 0),
      meanExecTime: Number(row.mean_exec_time ?? 0),
      rows: Number(row.rows ?? 0),
      sharedBlksHit: Number(row.shared_blks_hit ?? 0),
      sharedBlksRead: Number(row.shared_blks_read ?? 0),
    }));
  }

  /** The newest row of each entity of a probe collected in the last hour. */
  async latestSnapshot(access: RequestAccess, request: LatestSnapshotRequest): Promise<LatestSnapshot> {
    const { connectionId } = request;
    const probe = catalogueProbe(request.probeName, (name) => `Probe "${name}" not found`);
    const dimensions = dimensionColumns(probe);
    if (dimensions.length === 0) {
      throw new InvalidInput(`Probe "${probe.name}" has no dimension columns`);
    }
    const output = [
      ...(probe.scope === "database" ? ["database_name"] : []),
      ...probe.columns.map((col) => col.name),
    ];
    const orderBy = request.orderBy ?? dimensions[0];
    if (!output.includes(orderBy as string)) {
      throw new InvalidInput(
        `Invalid order_by: column "${orderBy}" does not exist in probe "${probe.name}" output`,
      );
    }
    await requireReadable(access, [connectionId]);
    const { datastore, clock } = this.deps;
    if (!(await probeTableExists(datastore.sql, probe))) {
      return { rows: [], total: 0 };
    }
    const params: unknown[] = [connectionId, clock.now().toISOString()];
    const conditions = [
      sourceRowCondition(probe, probeTable(probe), "s"),
      "collected_at > $2::timestamptz - interval '1 hour'",
    ];
    if (request.databaseName && output.includes("database_name")) {
      params.push(request.databaseName);
      conditions.push(`database_name = $${params.length}`);
    }
    const excluded = request.excludeSchemas ?? SYSTEM_SCHEMAS;
    if (output.includes("schemaname") && excluded.length > 0) {
      params.push([...excluded]);
      conditions.push(`schemaname <> all($${params.length}::text[])`);
    }
    const limit = Math.min(request.limit ?? 20, MAX_ROWS);
    const select = output
      .map((name) => {
        const column = probe.columns.find((col) => col.name === name);
        const ref = quoted(name);
        // Timestamps as RFC 3339 text; big numbers as JSON numbers.
        if (column?.type === "timestamptz") {
          return `to_json(${ref}) #>> '{}' as ${ref}`;
        }
        if (column?.type === "bigint" || column?.type === "numeric") {
          return `${ref}::float8 as ${ref}`;
        }
        return column?.type === "interval" || column?.type === "inet" ? `${ref}::text as ${ref}` : ref;
      })
      .join(", ");
    const rows = await datastore.sql.unsafe<Record<string, unknown>[]>(
      `with latest as (
         select distinct on (${dimensions.map(quoted).join(", ")}) ${select}
         from ${rowSources(probe, "array[$1::int]")} s
         join ${probeTable(probe)} on ${probeTable(probe)}.connection_id = s.source_id
         where ${conditions.join(" and ")}
         order by ${dimensions.map(quoted).join(", ")}, collected_at desc
       )
       select *, count(*) over ()::int as "__total" from latest
       order by ${quoted(orderBy as string)} ${request.order === "asc" ? "asc" : "desc"} nulls last
       limit ${limit}`,
      params as never[],
    );
    return {
      rows: rows.map(({ __total: _total, ...row }) => row),
      total: rows[0] ? Number(rows[0].__total) : 0,
    };
  }
}
