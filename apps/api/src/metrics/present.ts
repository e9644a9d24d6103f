import type { Series } from "./series.js";
import type {
  Baseline,
  CacheHitRatio,
  DatabaseSummaries,
  LatestSnapshot,
  PerformanceSummary,
  StoredBaseline,
  TimedValue,
  TopQuery,
} from "./service.js";

function presentTimedValue({ time, value }: TimedValue) {
  return { time: time.toISOString(), value };
}

function presentCacheHitRatio(ratio: CacheHitRatio) {
  return { current: ratio.current, time_series: ratio.series.map(presentTimedValue) };
}

/** A metric's series as GET /metrics/query and query_metrics show it. */
export function presentSeries(series: Series) {
  return {
    name: series.name,
    metric: series.metric,
    data: series.data.map(presentTimedValue),
    unit: series.unit,
  };
}

/** GET /metrics/performance-summary's body. */
export function presentPerformanceSummary(summary: PerformanceSummary) {
  return {
    time_range: summary.range,
    connections: summary.connections.map((connection) => ({
      connection_id: connection.connectionId,
      connection_name: connection.connectionName,
      xid_age: connection.xidAges.map((age) => ({
        database_name: age.databaseName,
        age: age.age,
        percent: age.percent,
      })),
      cache_hit_ratio: presentCacheHitRatio(connection.cacheHitRatio),
      transactions: {
        commits_per_sec: connection.transactions.commitsPerSec,
        rollback_percent: connection.transactions.rollbackPercent,
        time_series: connection.transactions.series.map((point) => ({
          time: point.time.toISOString(),
          commits_per_sec: point.commitsPerSec,
          rollback_percent: point.rollbackPercent,
        })),
      },
      checkpoints: {
        time_series: connection.checkpoints.map((point) => ({
          time: point.time.toISOString(),
          write_time_ms: point.writeTimeMs,
          sync_time_ms: point.syncTimeMs,
        })),
      },
    })),
    aggregate: {
      cache_hit_ratio: summary.aggregate.cacheHitRatio,
      commits_per_sec: summary.aggregate.commitsPerSec,
      rollback_percent: summary.aggregate.rollbackPercent,
    },
  };
}

/** GET /metrics/database-summaries' body. */
export function presentDatabaseSummaries(summaries: DatabaseSummaries) {
  return {
    connection_id: summaries.connectionId,
    time_range: summaries.range,
    databases: summaries.databases.map((database) => ({
      database_name: database.databaseName,
      size_bytes: database.sizeBytes,
      size_pretty: database.sizePretty,
      cache_hit_ratio: presentCacheHitRatio(database.cacheHitRatio),
      transaction_rate: database.transactionRate,
      dead_tuple_ratio: database.deadTupleRatio,
      active_connections: database.activeConnections,
    })),
  };
}

/** A query of GET /metrics/top-queries. */
export function presentTopQuery(query: TopQuery) {
  return {
    queryid: query.queryId,
    database_name: query.databaseName,
    query: query.query,
    calls: query.calls,
    total_exec_time: query.totalExecTime,
    mean_exec_time: query.meanExecTime,
    rows: query.rows,
    shared_blks_hit: query.sharedBlksHit,
    shared_blks_read: query.sharedBlksRead,
  };
}

/** GET /metrics/latest's body: the rows as the probe names their columns. */
export function presentLatestSnapshot(snapshot: LatestSnapshot) {
  return { rows: snapshot.rows, total_count: snapshot.total };
}

/** A computed baseline as GET /metrics/baselines and get_metric_baselines (with a metric) show it. */
export function presentBaseline(baseline: Baseline) {
  return {
    metric: baseline.metric,
    mean: baseline.mean,
    stddev: baseline.stddev,
    min: baseline.min,
    max: baseline.max,
    p50: baseline.p50,
    p95: baseline.p95,
    p99: baseline.p99,
    sample_count: baseline.sampleCount,
  };
}

/** A stored baseline as get_metric_baselines (without a metric) shows it. */
export function presentStoredBaseline(baseline: StoredBaseline) {
  return {
    metric_name: baseline.metricName,
    database_name: baseline.databaseName,
    object_name: baseline.objectName,
    mean: baseline.mean,
    stddev: baseline.stddev,
    min: baseline.min,
    max: baseline.max,
    sample_count: baseline.sampleCount,
    last_sample_at: baseline.lastSampleAt.toISOString(),
  };
}
