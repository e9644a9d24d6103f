import { getMetricBaselines } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import {
  catalogueProbe,
  metricColumns,
  numericValue,
  probeTable,
  probeTableExists,
} from "../../metrics/catalogue.js";
import { required, requireReadable } from "../../metrics/request.js";

const LOOKBACK_DAYS = 7;

export function registerGetMetricBaselines(app: App): void {
  app.openapi(guarded(getMetricBaselines, {}), async (c) => {
    const query = c.req.valid("query");
    const connectionId = required(query.connection_id, "connection_id");
    const probe = catalogueProbe(
      required(query.probe_name, "probe_name"),
      (name) => `probe "${name}" not found`,
    );
    await requireReadable(c.get("access"), [connectionId]);
    const { datastore, clock } = c.get("services");
    const wanted = query.metrics ?? [];
    const columns = metricColumns(probe).filter(
      (column) =>
        wanted.length === 0 ||
        wanted.includes(`${probe.name}.${column.name}`) ||
        wanted.includes(column.name),
    );
    if (columns.length === 0 || !(await probeTableExists(datastore.sql, probe))) {
      return c.json([], 200);
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
       where connection_id = $1 and collected_at >= $2::timestamptz - make_interval(days => ${LOOKBACK_DAYS})
         and collected_at <= $2::timestamptz`,
      [connectionId, now.toISOString()],
    );
    const baselines = columns.flatMap((column, index) => {
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
    return c.json(baselines, 200);
  });
}
