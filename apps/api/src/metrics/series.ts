import type { Sql } from "@dbmon/datastore";
import {
  type ProbeColumn,
  type ProbeSpec,
  rollupCoverage,
  rollupDatabaseColumn,
  rowSources,
  sourceRowCondition,
} from "@dbmon/monitoring";
import { numericValue, probeTable, quoted } from "./catalogue.js";
import { dateFromEpoch } from "./request.js";

export type Aggregation = "avg" | "sum" | "min" | "max" | "last";

export interface SeriesRequest {
  probe: ProbeSpec;
  metrics: readonly ProbeColumn[];
  connectionIds: readonly number[];
  rangeSeconds: number;
  buckets: number;
  aggregation: Aggregation;
  now: Date;
  databaseName?: string;
  schemaName?: string;
  tableName?: string;
}

/** One metric of one connection: each bucket's start and value. */
export interface Series {
  name: string;
  metric: string;
  data: { time: Date; value: number }[];
  unit: string;
}

/** Bucket layout: `buckets` buckets of whole seconds ending at `now`. */
export function bucketLayout(rangeSeconds: number, buckets: number, now: Date) {
  const width = Math.max(1, Math.floor(rangeSeconds / buckets));
  const end = Math.floor(now.getTime() / 1000);
  return { width, start: end - width * buckets, end };
}

function aggregate(aggregation: Aggregation, value: string): string {
  return aggregation === "last"
    ? `(array_agg(${value} order by r.collected_at desc) filter (where ${value} is not null))[1]`
    : `${aggregation}(${value})::float8`;
}

/** One row per connection and bucket: `m<index>` is each metric's aggregate (null: no value). */
type BucketRow = Record<string, number | null>;

/**
 * One series per metric and connection: the aggregate of each bucket's rows, buckets without rows
 * repeating the last value (buckets before the first value are left out). From the coarsest rollup
 * no coarser than a bucket when there is one (and no schema or table filter, which rollups do not
 * keep), else from the raw rows.
 */
export async function querySeries(sql: Sql, request: SeriesRequest): Promise<Series[]> {
  const { width, start, end } = bucketLayout(request.rangeSeconds, request.buckets, request.now);
  const coverage =
    request.schemaName || request.tableName ? undefined : await rollupCoverage(sql, request.probe, width);
  const rows = coverage
    ? await rolledUpBuckets(
        sql,
        request,
        { width, start, end },
        coverage.table.name,
        coverage.rolledThroughMs,
      )
    : await rawBuckets(sql, request, { width, start, end });
  return seriesFromBuckets(request, { width, start }, rows);
}

type Layout = ReturnType<typeof bucketLayout>;

/** Buckets aggregated from the raw rows. */
async function rawBuckets(
  sql: Sql,
  request: SeriesRequest,
  { width, start, end }: Layout,
): Promise<BucketRow[]> {
  const { probe, metrics, aggregation } = request;
  const columns = new Set(probe.columns.map((column) => column.name));
  const params: unknown[] = [request.connectionIds, start, end, width];
  const filters: string[] = [];
  const filter = (column: string | undefined, value: string | undefined) => {
    if (column && value !== undefined && value !== "") {
      params.push(value);
      filters.push(`r.${quoted(column)} = $${params.length}`);
    }
  };
  const databaseColumn =
    probe.scope === "database" ? "database_name" : columns.has("datname") ? "datname" : undefined;
  filter(databaseColumn, request.databaseName);
  filter(columns.has("schemaname") ? "schemaname" : undefined, request.schemaName);
  filter(columns.has("relname") ? "relname" : undefined, request.tableName);
  // Each connection's rows where its server's or databases' collections are (`rowSources`).
  const text = `select s.connection_id,
    floor((extract(epoch from r.collected_at) - $2) / $4)::int as bucket,
    ${metrics.map((metric, index) => `${aggregate(aggregation, numericValue(metric, "r."))} as m${index}`).join(",\n    ")}
  from ${rowSources(probe, "$1::int[]")} s
  join ${probeTable(probe)} r on r.connection_id = s.source_id and ${sourceRowCondition(probe, "r", "s")}
  where r.collected_at >= to_timestamp($2) and r.collected_at < to_timestamp($3)
    ${filters.map((condition) => `and ${condition}`).join(" ")}
  group by 1, 2`;
  return sql.unsafe<BucketRow[]>(text, params as never[]);
}

/** How a bucket's rollup partials (count, sum, min, max, last at last_at) combine for an aggregation. */
function combined(aggregation: Aggregation): string {
  switch (aggregation) {
    case "avg":
      return "sum(p.sum) / nullif(sum(p.sample_count), 0)";
    case "sum":
      return "sum(p.sum)";
    case "last":
      return "(array_agg(p.last order by p.last_at desc))[1]";
    default:
      return `${aggregation}(p.${aggregation})`;
  }
}

/**
 * Buckets from a rollup table up to where it is complete, and from the raw rows after that (the last
 * minutes), both as the same partials, combined per bucket. A rollup bucket counts in the bucket
 * holding its start: the answer equals the raw aggregation within the rollup's resolution.
 */
async function rolledUpBuckets(
  sql: Sql,
  request: SeriesRequest,
  { width, start, end }: Layout,
  table: string,
  rolledThroughMs: number,
): Promise<BucketRow[]> {
  const { probe, metrics, aggregation } = request;
  const database = rollupDatabaseColumn(probe);
  const params: unknown[] = [
    request.connectionIds,
    start,
    end,
    width,
    rolledThroughMs / 1000,
    probe.name,
    metrics.map((metric) => metric.name),
  ];
  let rollupFilter = "";
  let rawFilter = "";
  if (database && request.databaseName) {
    params.push(request.databaseName);
    rollupFilter = `and u.database_name = $${params.length}`;
    rawFilter = `and r.${quoted(database)} = $${params.length}`;
  }
  const values = metrics.map((metric) => `('${metric.name}', ${numericValue(metric, "r.")})`).join(", ");
  const text = `select connection_id, bucket,
    ${metrics.map((metric, index) => `(array_agg(value) filter (where metric = '${metric.name}'))[1] as m${index}`).join(",\n    ")}
  from (
    select p.connection_id, p.bucket, p.metric, ${combined(aggregation)}::float8 as value
    from (
      select s.connection_id, floor((extract(epoch from u.collected_at) - $2) / $4)::int as bucket, u.metric,
        u.sample_count, u.sum, u.min, u.max, u.last, u.last_at
      from ${rowSources(probe, "$1::int[]")} s
      join metrics.${quoted(table)} u on u.connection_id = s.source_id and ${sourceRowCondition(probe, "u", "s")}
      where u.probe = $6 and u.metric = any($7::text[])
        and u.collected_at >= to_timestamp($2) and u.collected_at < least(to_timestamp($3), to_timestamp($5)) ${rollupFilter}
      union all
      select s.connection_id, floor((extract(epoch from r.collected_at) - $2) / $4)::int, m.metric,
        count(*)::int, sum(m.value), min(m.value), max(m.value),
        (array_agg(m.value order by r.collected_at desc))[1], max(r.collected_at)
      from ${rowSources(probe, "$1::int[]")} s
      join ${probeTable(probe)} r on r.connection_id = s.source_id and ${sourceRowCondition(probe, "r", "s")}
      cross join lateral (values ${values}) as m(metric, value)
      where m.value is not null
        and r.collected_at >= greatest(to_timestamp($2), to_timestamp($5)) and r.collected_at < to_timestamp($3) ${rawFilter}
      group by 1, 2, 3
    ) p
    group by 1, 2, 3
  ) b
  group by 1, 2`;
  return sql.unsafe<BucketRow[]>(text, params as never[]);
}

/** Series from bucket rows: empty buckets repeat the last value, leading ones are left out. */
function seriesFromBuckets(
  request: SeriesRequest,
  { width, start }: { width: number; start: number },
  rows: readonly BucketRow[],
): Series[] {
  const { metrics, connectionIds, buckets } = request;
  const byConnection = new Map<number, Record<string, number | null>[]>();
  for (const row of rows) {
    const id = Number(row.connection_id);
    byConnection.set(id, [...(byConnection.get(id) ?? []), row]);
  }
  const result: Series[] = [];
  for (const id of connectionIds) {
    const values = Array.from(
      { length: buckets },
      () => undefined as Record<string, number | null> | undefined,
    );
    for (const row of byConnection.get(id) ?? []) {
      const bucket = Number(row.bucket);
      if (bucket >= 0 && bucket < buckets) {
        values[bucket] = row;
      }
    }
    metrics.forEach((metric, index) => {
      const data: Series["data"] = [];
      let last: number | null = null;
      for (let bucket = 0; bucket < buckets; bucket += 1) {
        const value = values[bucket]?.[`m${index}`];
        if (value !== undefined && value !== null) {
          last = Number(value);
        }
        if (last !== null) {
          data.push({ time: dateFromEpoch(start + bucket * width), value: last });
        }
      }
      result.push({
        name: connectionIds.length > 1 ? `${metric.name} (conn ${id})` : metric.name,
        metric: metric.name,
        data,
        unit: "",
      });
    });
  }
  return result;
}
