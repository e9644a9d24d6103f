import type {
  BaselineSchema,
  DatabaseSummariesSchema,
  LatestSnapshotSchema,
  PerformanceSummarySchema,
  TIME_RANGES,
  TOP_QUERY_ORDERS,
  TopQuerySchema,
} from "@dbmon/contract";
import type { Datastore } from "@dbmon/datastore";
import type { z } from "@hono/zod-openapi";
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
import {
  isoFromEpoch,
  RANGE_SECONDS,
  requestedConnections,
  required,
  requireReadable,
  round,
  summaryWindow,
} from "./request.js";
import { type Aggregation, querySeries, type Series } from "./series.js";
import {
  bucketAverages,
  collectionTotals,
  databaseSamples,
  hitRatio,
  transactionRates,
} from "./snapshots.js";

type TimeRange = (typeof TIME_RANGES)[number];

/** Which connections a request names: `connection_ids` wins over `connection_id`. */
export interface ConnectionSelection {
  connection_id?: number | undefined;
  connection_ids?: number[] | undefined;
}

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

export interface SummaryQuery extends ConnectionSelection {
  time_range: TimeRange;
}

export interface TopQueriesQuery {
  connection_id?: number | undefined;
  limit?: number | undefined;
  order_by?: (typeof TOP_QUERY_ORDERS)[number] | undefined;
  order?: "asc" | "desc" | undefined;
  queryid?: string | undefined;
  exclude_collector?: boolean | undefined;
}

export interface LatestSnapshotQuery {
  connection_id?: number | undefined;
  probe_name?: string | undefined;
  database_name?: string | undefined;
  exclude_schemas?: string[] | undefined;
  order_by?: string | undefined;
  order?: "asc" | "desc" | undefined;
  limit?: number | undefined;
}

export type Baseline = z.output<typeof BaselineSchema>;

/** One series' baseline as the alerter stored it. */
export interface StoredBaseline {
  metric_name: string;
  database_name: string | null;
  object_name: string | null;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  sample_count: number;
  /** RFC 3339, UTC. */
  last_sample_at: string;
}
export type PerformanceSummary = z.output<typeof PerformanceSummarySchema>;
export type DatabaseSummaries = z.output<typeof DatabaseSummariesSchema>;
export type TopQuery = z.output<typeof TopQuerySchema>;
export type LatestSnapshot = z.output<typeof LatestSnapshotSchema>;

const BASELINE_LOOKBACK_DAYS = 7;
const XID_LIMIT = 2_147_483_647;
const MAX_ROWS = 100;
const DEFAULT_EXCLUDED_SCHEMAS = ["pg_catalog", "information_schema", "pg_toast"];

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
      `select ${stats.join(",\n")} from ${probeTable(probe)}
       where connection_id = $1 and collected_at >= $2::timestamptz - make_interval(days => ${BASELINE_LOOKBACK_DAYS})
         and collected_at <= $2::timestamptz`,
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
          sample_count: count,
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
    const { sql } = this.deps.datastore;
    const { rows, total } = await withTotal(
      sql<StoredBaseline[]>`
        select metric_name, nullif(database_name, '') as database_name, nullif(object_name, '') as object_name,
          mean, stddev, min, max, sample_count,
          to_char(last_sample_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_sample_at
        from metric_baselines
        where connection_id = ${connectionId} and period = 'all'
        order by metric_name, database_name, object_name
        limit ${limit} offset ${offset}`,
      sql<{ n: number }[]>`
        select count(*)::int as n from metric_baselines where connection_id = ${connectionId} and period = 'all'`,
    );
    return { baselines: rows, total };
  }

  /** Transaction ID age, cache hit ratio, transaction rates and checkpoint times per connection. */
  async performanceSummary(access: RequestAccess, query: SummaryQuery): Promise<PerformanceSummary> {
    const ids = requestedConnections(query);
    await requireReadable(access, ids);
    const { datastore, clock } = this.deps;
    const { sql } = datastore;
    const { start, width } = summaryWindow(clock.now(), query.time_range);
    const [tables] = await sql<{ database: boolean; checkpointer: boolean }[]>`
      select to_regclass('metrics.pg_database') is not null as database,
        to_regclass('metrics.pg_stat_checkpointer') is not null as checkpointer`;
    const [names, samples, ages, checkpoints] = await Promise.all([
      sql<{ id: number; name: string }[]>`select id, name from connections where id = any(${ids}::int[])`,
      databaseSamples(sql, ids, start - width),
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
    // Always present, over one connection too: the reference web client's dashboards read it.
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
    return {
      time_range: query.time_range,
      connections,
      aggregate: {
        cache_hit_ratio: ratios.length ? round(ratios.reduce((a, b) => a + b, 0) / ratios.length, 2) : null,
        commits_per_sec: withRates.length ? round(commits, 1) : null,
        rollback_percent: withRates.length ? round(commits > 0 ? weighted / commits : 0, 1) : null,
      },
    };
  }

  /** Size, cache hit ratio, commit rate, dead tuples and backends of each database of one connection. */
  async databaseSummaries(access: RequestAccess, query: SummaryQuery): Promise<DatabaseSummaries> {
    const ids = query.connection_ids ?? (query.connection_id === undefined ? [] : [query.connection_id]);
    const [connectionId] = ids;
    if (ids.length !== 1 || connectionId === undefined) {
      throw new InvalidInput("Exactly one connection_id is required");
    }
    await requireReadable(access, [connectionId]);
    const { datastore, clock } = this.deps;
    const { sql } = datastore;
    const { start, width } = summaryWindow(clock.now(), query.time_range);
    const [tables] = await sql<{ database: boolean; tables: boolean }[]>`
      select to_regclass('metrics.pg_database') is not null as database,
        to_regclass('metrics.pg_stat_all_tables') is not null as tables`;
    const [samples, sizes, dead] = await Promise.all([
      databaseSamples(sql, [connectionId], start),
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
    // The databases of the latest collection: one dropped since is no longer listed.
    const latestAt = Math.max(...samples.map((row) => row.at));
    const names = samples.filter((row) => row.at === latestAt).map((row) => row.database_name);
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
        // 0 until a second sample gives a rate, as the reference answers.
        transaction_rate: rates[0] ? (round(rates[0].commitsPerSec, 1) ?? 0) : 0,
        dead_tuple_ratio: round(dead.find((row) => row.database_name === name)?.ratio ?? null, 2),
        active_connections: latest ? latest.numbackends : null,
      };
    });
    return { connection_id: connectionId, time_range: query.time_range, databases };
  }

  /** The latest pg_stat_statements collection of a connection, one row per queryid. */
  async topQueries(access: RequestAccess, query: TopQueriesQuery): Promise<TopQuery[]> {
    const connectionId = required(query.connection_id, "connection_id");
    await requireReadable(access, [connectionId]);
    const { sql } = this.deps.datastore;
    const [table] = await sql<
      { ok: boolean }[]
    >`select to_regclass('metrics.pg_stat_statements') is not null as ok`;
    if (!table?.ok) {
      return [];
    }
    // The catalogue's columns only: order_by was checked against the contract's list.
    const orderBy = query.order_by ?? "total_exec_time";
    const direction = query.order === "asc" ? "asc" : "desc";
    const limit = Math.min(query.limit ?? 10, MAX_ROWS);
    const excludeCollector = query.exclude_collector === true;
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
    return rows.map((row) => ({
      queryid: String(row.queryid),
      database_name: String(row.database_name),
      query: String(row.query ?? ""),
      calls: Number(row.calls ?? 0),
      total_exec_time: Number(row.total_exec_time ?? 0),
      mean_exec_time: Number(row.mean_exec_time ?? 0),
      rows: Number(row.rows ?? 0),
      shared_blks_hit: Number(row.shared_blks_hit ?? 0),
      shared_blks_read: Number(row.shared_blks_read ?? 0),
    }));
  }

  /** The newest row of each entity of a probe collected in the last hour. */
  async latestSnapshot(access: RequestAccess, query: LatestSnapshotQuery): Promise<LatestSnapshot> {
    const connectionId = required(query.connection_id, "connection_id");
    const probe = catalogueProbe(
      required(query.probe_name, "probe_name"),
      (name) => `Probe "${name}" not found`,
    );
    const dimensions = dimensionColumns(probe);
    if (dimensions.length === 0) {
      throw new InvalidInput(`Probe "${probe.name}" has no dimension columns`);
    }
    const output = [
      ...(probe.scope === "database" ? ["database_name"] : []),
      ...probe.columns.map((col) => col.name),
    ];
    const orderBy = query.order_by ?? dimensions[0];
    if (!output.includes(orderBy as string)) {
      throw new InvalidInput(
        `Invalid order_by: column "${orderBy}" does not exist in probe "${probe.name}" output`,
      );
    }
    await requireReadable(access, [connectionId]);
    const { datastore, clock } = this.deps;
    if (!(await probeTableExists(datastore.sql, probe))) {
      return { rows: [], total_count: 0 };
    }
    const params: unknown[] = [connectionId, clock.now().toISOString()];
    const conditions = ["connection_id = $1", "collected_at > $2::timestamptz - interval '1 hour'"];
    if (query.database_name && output.includes("database_name")) {
      params.push(query.database_name);
      conditions.push(`database_name = $${params.length}`);
    }
    const excluded =
      query.exclude_schemas?.length === 1 && query.exclude_schemas[0] === "none"
        ? []
        : (query.exclude_schemas ?? DEFAULT_EXCLUDED_SCHEMAS);
    if (output.includes("schemaname") && excluded.length > 0) {
      params.push(excluded);
      conditions.push(`schemaname <> all($${params.length}::text[])`);
    }
    const limit = Math.min(query.limit ?? 20, MAX_ROWS);
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
         from ${probeTable(probe)}
         where ${conditions.join(" and ")}
         order by ${dimensions.map(quoted).join(", ")}, collected_at desc
       )
       select *, count(*) over ()::int as "__total" from latest
       order by ${quoted(orderBy as string)} ${query.order === "asc" ? "asc" : "desc"} nulls last
       limit ${limit}`,
      params as never[],
    );
    const total = rows[0] ? Number(rows[0].__total) : 0;
    return {
      rows: rows.map(({ __total: _total, ...row }) => row),
      total_count: total,
    };
  }
}
