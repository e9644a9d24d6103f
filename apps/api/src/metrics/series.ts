import type { ProbeColumn, ProbeSpec, Sql } from "@dbmon/datastore";
import { numericValue, probeTable, quoted } from "./catalogue.js";
import { isoFromEpoch } from "./request.js";

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

export interface Series {
  name: string;
  metric: string;
  data: { time: string; value: number }[];
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
    ? `(array_agg(${value} order by collected_at desc) filter (where ${value} is not null))[1]`
    : `${aggregation}(${value})::float8`;
}

/**
 * One series per metric and connection: the aggregate of each bucket's rows, buckets without rows
 * repeating the last value (buckets before the first value are left out).
 */
export async function querySeries(sql: Sql, request: SeriesRequest): Promise<Series[]> {
  const { probe, metrics, connectionIds, buckets, aggregation } = request;
  const { width, start, end } = bucketLayout(request.rangeSeconds, buckets, request.now);
  const columns = new Set(probe.columns.map((column) => column.name));
  const params: unknown[] = [connectionIds, start, end, width];
  const filters: string[] = [];
  const filter = (column: string | undefined, value: string | undefined) => {
    if (column && value !== undefined && value !== "") {
      params.push(value);
      filters.push(`${quoted(column)} = $${params.length}`);
    }
  };
  const databaseColumn =
    probe.scope === "database" ? "database_name" : columns.has("datname") ? "datname" : undefined;
  filter(databaseColumn, request.databaseName);
  filter(columns.has("schemaname") ? "schemaname" : undefined, request.schemaName);
  filter(columns.has("relname") ? "relname" : undefined, request.tableName);
  const text = `select connection_id,
    floor((extract(epoch from collected_at) - $2) / $4)::int as bucket,
    ${metrics.map((metric, index) => `${aggregate(aggregation, numericValue(metric))} as m${index}`).join(",\n    ")}
  from ${probeTable(probe)}
  where connection_id = any($1::int[])
    and collected_at >= to_timestamp($2) and collected_at < to_timestamp($3)
    ${filters.map((condition) => `and ${condition}`).join(" ")}
  group by 1, 2`;
  const rows = await sql.unsafe<Record<string, number | null>[]>(text, params as never[]);
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
          data.push({ time: isoFromEpoch(start + bucket * width), value: last });
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
