import { TIME_RANGES } from "@dbmon/contract";
import { findProbeSpec, probeCatalogue } from "@dbmon/monitoring";
import { z } from "zod";
import { presentConnection } from "../../connections/store.js";
import { dimensionColumns, metricColumns } from "../../metrics/catalogue.js";
import { presentBaseline, presentSeries, presentStoredBaseline } from "../../metrics/present.js";
import { pageArguments, rowIdArgument, timeArgument } from "../arguments.js";
import { boundConnection } from "../connection.js";
import { pointInTime } from "../time.js";
import { defineTool, failure, text, tsv, tsvOfObjects, tsvPage } from "../tool.js";

const RANGE_SECONDS: Record<(typeof TIME_RANGES)[number], number> = {
  "1h": 3600,
  "6h": 6 * 3600,
  "24h": 24 * 3600,
  "7d": 7 * 86_400,
  "30d": 30 * 86_400,
};

export const listConnections = defineTool({
  name: "list_connections",
  privilege: "list_connections",
  description:
    "List the monitored PostgreSQL connections you can see, by name, as TSV after the number of them: id, name, host, port, database, whether they are monitored, and the last connection error if any. Use the ids as `connection_id` of the other tools.",
  compactDescription: "List monitored connections (ids, names, hosts).",
  input: pageArguments(100, 500),
  async run(context, args) {
    const { connections, total } = await context.services.connections.find(context.access, args);
    const rows = connections.map((row) => {
      const view = presentConnection(row);
      return {
        id: view.id,
        name: view.name,
        host: view.host,
        port: view.port,
        database_name: view.database_name,
        is_monitored: view.is_monitored,
        status: view.connection_error ? `error: ${view.connection_error}` : "ok",
      };
    });
    return text(tsvPage(total, "connection", rows, "No connections are visible to you"));
  },
});

export const listProbes = defineTool({
  name: "list_probes",
  privilege: "list_probes",
  description:
    "List the probes dbmon collects into its datastore, one per PostgreSQL statistics view or host source: name, scope (server, database or host), collection interval and description, as TSV. Use a probe's name with describe_probe and query_metrics.",
  compactDescription: "List metric probes.",
  input: {},
  async run() {
    return text(
      tsv(
        ["name", "scope", "interval_seconds", "description"],
        probeCatalogue.map((probe) => [probe.name, probe.scope, probe.intervalSeconds, probe.description]),
      ),
    );
  },
});

export const describeProbe = defineTool({
  name: "describe_probe",
  privilege: "describe_probe",
  description:
    "Describe one probe's columns: name, type, and whether query_metrics can aggregate it (metric) or it identifies what a row is about (dimension), as TSV. Call it before query_metrics to pick `metrics`.",
  compactDescription: "Columns of one probe.",
  input: { probe_name: z.string().min(1).describe("Probe name, from list_probes") },
  async run(_context, args) {
    const probe = findProbeSpec(args.probe_name);
    if (!probe) {
      return failure(`Probe "${args.probe_name}" not found; list_probes lists them`);
    }
    const metrics = new Set(metricColumns(probe).map((column) => column.name));
    const dimensions = new Set(dimensionColumns(probe));
    const columns = [
      { name: "connection_id", type: "integer" },
      { name: "collected_at", type: "timestamp with time zone" },
      ...(probe.scope === "database" ? [{ name: "database_name", type: "text" }] : []),
      ...probe.columns,
    ];
    return text(
      `${probe.name}: ${probe.description} (scope ${probe.scope}, every ${probe.intervalSeconds} s)\n${tsv(
        ["column", "type", "role"],
        columns.map((column) => [
          column.name,
          column.type,
          metrics.has(column.name) ? "metric" : dimensions.has(column.name) ? "dimension" : "",
        ]),
      )}`,
    );
  },
});

export const queryMetrics = defineTool({
  name: "query_metrics",
  privilege: "query_metrics",
  description:
    'Collected metrics of one probe on one connection, aggregated into time buckets, as TSV (time, then one column per metric). `time_start` is relative ("1h", "24h", "7d") or ISO 8601 and is rounded up to the nearest window dbmon keeps (1h, 6h, 24h, 7d, 30d), ending now. `metrics` is a comma-separated list of the probe\'s numeric columns (default: all); narrow database-scope probes with `database_name`, `schema_name`, `table_name`. Counters are cumulative as PostgreSQL reports them: compare buckets to get rates.',
  compactDescription: "Time-bucketed metrics of a probe.",
  input: {
    probe_name: z.string().min(1).describe("Probe name, from list_probes"),
    connection_id: rowIdArgument.optional().describe("Defaults to the selected connection"),
    time_start: timeArgument.default("1h").describe('Start: "1h", "24h", "7d" or an ISO time'),
    time_end: timeArgument.default("now").describe('End: "now" (the only end dbmon keeps windows for)'),
    buckets: z.number().int().min(1).max(500).default(150).describe("Number of time buckets"),
    metrics: z.string().optional().describe("Comma-separated columns; default all numeric columns"),
    database_name: z.string().optional(),
    schema_name: z.string().optional(),
    table_name: z.string().optional(),
    aggregation: z.enum(["avg", "sum", "min", "max", "last"]).default("avg"),
  },
  async run(context, args) {
    const { row } = await boundConnection(context, args);
    const now = context.services.clock.now();
    const seconds = (now.getTime() - pointInTime(args.time_start, now, "time_start").getTime()) / 1000;
    const range = TIME_RANGES.find((candidate) => RANGE_SECONDS[candidate] >= seconds) ?? "30d";
    const found = await context.services.metrics.series(context.access, {
      probeName: args.probe_name,
      connectionIds: [row.id],
      range,
      buckets: args.buckets,
      aggregation: args.aggregation,
      metrics: args.metrics
        ?.split(",")
        .map((name) => name.trim())
        .filter(Boolean),
      databaseName: args.database_name,
      schemaName: args.schema_name,
      tableName: args.table_name,
    });
    const series = found.map(presentSeries);
    if (series.length === 0) {
      return text(`No data for ${args.probe_name} on connection ${row.id} in the last ${range}`);
    }
    const times = [...new Set(series.flatMap((one) => one.data.map((point) => point.time)))].sort();
    const values = series.map((one) => new Map(one.data.map((point) => [point.time, point.value])));
    return text(
      `${args.probe_name} on connection ${row.id}, last ${range}, ${args.aggregation} per bucket\n${tsv(
        ["time", ...series.map((one) => one.metric)],
        times.map((time) => [time, ...values.map((byTime) => byTime.get(time) ?? null)]),
      )}`,
    );
  },
});

export const getMetricBaselines = defineTool({
  name: "get_metric_baselines",
  privilege: "get_metric_baselines",
  description:
    'Baseline statistics of a connection\'s metrics, as TSV. With `metric_name`, a probe ("pg_stat_database") or one of its columns ("pg_stat_database.xact_commit"): mean, standard deviation, min, max, percentiles and sample count over the last 7 days. Without it: the baselines the anomaly detector keeps for the connection (mean, standard deviation, min, max, sample count per series), by metric, after their number; `limit` and `offset` page through them. Use it to judge whether a current value is unusual.',
  compactDescription: "Baselines of a connection's metrics (7 days, or the anomaly detector's).",
  input: {
    connection_id: rowIdArgument.optional().describe("Defaults to the selected connection"),
    metric_name: z
      .string()
      .min(1)
      .optional()
      .describe('A probe, or "<probe>.<column>"; the stored baselines of the connection when absent'),
    ...pageArguments(200, 1000),
  },
  async run(context, args) {
    const { row } = await boundConnection(context, args);
    if (args.metric_name === undefined) {
      const { baselines, total } = await context.services.metrics.storedBaselines(context.access, row.id, {
        limit: args.limit,
        offset: args.offset,
      });
      return text(
        tsvPage(
          total,
          "baseline",
          baselines.map(presentStoredBaseline),
          `No baselines on connection ${row.id} yet`,
        ),
      );
    }
    const [probe, column] = args.metric_name.split(".", 2) as [string, string | undefined];
    const baselines = await context.services.metrics.baselines(context.access, {
      connectionId: row.id,
      probeName: probe,
      metrics: column ? [column] : undefined,
    });
    return text(
      tsvOfObjects(
        baselines.map(presentBaseline),
        `No baselines for ${args.metric_name} on connection ${row.id} yet`,
      ),
    );
  },
});

export const monitoringTools = [listConnections, listProbes, describeProbe, queryMetrics, getMetricBaselines];
