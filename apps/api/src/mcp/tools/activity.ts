import { ACTIVITY_DIMENSIONS, MAX_ACTIVITY_SERIES } from "@dbmon/contract";
import { z } from "zod";
import type { ActivityScopeView } from "../../activity/present.js";
import { rowIdArgument, timeArgument } from "../arguments.js";
import { boundConnection } from "../connection.js";
import { pointInTime } from "../time.js";
import { defineTool, type ToolContext, text, tsv } from "../tool.js";

/** The window a tool names, as the activity service takes it. */
function toolWindow(context: ToolContext, args: { time_start: string; time_end: string }) {
  const now = context.services.clock.now();
  return {
    start_time: pointInTime(args.time_start, now, "time_start"),
    end_time: pointInTime(args.time_end, now, "time_end"),
  };
}

/** The CPU line, said once for a model: load above it is waiting for CPU. */
function cpuLine(vcpus: number | null): string {
  return vcpus === null
    ? "vCPUs of the host: not collected"
    : `vCPUs of the host: ${vcpus} (load above it means sessions waiting for CPU)`;
}

function serverName(scope: ActivityScopeView): string {
  return `connection ${scope.id} (${scope.name})`;
}

const windowArguments = {
  connection_id: rowIdArgument.optional().describe("Defaults to the selected connection"),
  time_start: timeArgument.default("1h").describe('Start: "1h", "24h", "7d" or an ISO time'),
  time_end: timeArgument.default("now").describe('End: "now" or an ISO time'),
};

export const getDatabaseLoad = defineTool({
  name: "get_database_load",
  privilege: "get_database_load",
  description:
    "Database load of a connection's server over a time window: average active sessions (AAS) per time bucket, split by one dimension (wait_event_type by default: CPU, Lock, IO, LWLock…; or wait_event, query, database, user, application, client), as TSV with one column per value (most load first), `total` and `other`. Also gives the host's vCPU count: load above it means sessions queue for CPU. Empty cells are buckets never sampled. Use it to see when the database was busy and on what; then get_top_queries_by_load for the queries and get_lock_tree for blocking at a moment.",
  compactDescription: "Database load (active sessions) over time by wait type, query, user…",
  input: {
    ...windowArguments,
    dimension: z.enum(ACTIVITY_DIMENSIONS).default("wait_event_type").describe("What to split load by"),
    bucket_seconds: z
      .number()
      .int()
      .min(60)
      .max(86_400)
      .multipleOf(60)
      .optional()
      .describe("Bucket width in seconds (a multiple of 60); default gives at most 120 buckets"),
    series: z
      .number()
      .int()
      .min(1)
      .max(MAX_ACTIVITY_SERIES)
      .default(8)
      .describe("Values with a column of their own"),
  },
  async run(context, args) {
    const { row } = await boundConnection(context, args);
    const load = await context.services.activity.loadOf(
      context.access,
      { kind: "connection", id: row.id },
      {
        ...toolWindow(context, args),
        dimension: args.dimension,
        bucket_seconds: args.bucket_seconds,
        series: args.series,
      },
    );
    const heading = [
      `Database load of ${serverName(load.scope)} by ${load.dimension}, ${load.start_time} to ${load.end_time}, buckets of ${load.bucket_seconds} s`,
      `Average active sessions over the window: ${load.average_load ?? "nothing sampled"}`,
      cpuLine(load.vcpus),
    ].join("\n");
    const columns = [
      "time",
      "total",
      ...load.series.map((series) => series.label),
      ...(load.other ? ["other"] : []),
    ];
    const rows = load.times.map((time, at) => [
      time,
      load.total[at] ?? "",
      ...load.series.map((series) => series.load[at] ?? ""),
      ...(load.other ? [load.other.load[at] ?? ""] : []),
    ]);
    return text(`${heading}\n${tsv(columns, rows)}`);
  },
});

export const getTopQueriesByLoad = defineTool({
  name: "get_top_queries_by_load",
  privilege: "get_top_queries_by_load",
  description:
    "The queries that made the most database load on a connection's server over a time window, as TSV: query id, average active sessions, share of the load (percent), what the load was (CPU, Lock, IO… with their sessions) and the query text (from pg_stat_statements, or the sampled sessions). Unlike pg_stat_statements' execution time, load counts waiting too: a query blocked on locks ranks high.",
  compactDescription: "Top queries by database load (active sessions), with their waits and text.",
  input: {
    ...windowArguments,
    limit: z.number().int().min(1).max(100).default(10),
  },
  async run(context, args) {
    const { row } = await boundConnection(context, args);
    const top = await context.services.activity.topOf(
      context.access,
      { kind: "connection", id: row.id },
      { ...toolWindow(context, args), dimension: "query", limit: args.limit },
    );
    const heading = [
      `Top queries by load on ${serverName(top.scope)}, ${top.start_time} to ${top.end_time}`,
      `Average active sessions over the window: ${top.average_load ?? "nothing sampled"}`,
      cpuLine(top.vcpus),
    ].join("\n");
    if (top.items.length === 0) {
      return text(`${heading}\nNo active sessions were sampled in the window`);
    }
    return text(
      `${heading}\n${tsv(
        ["query_id", "load", "load_percent", "waits", "query"],
        top.items.map((item) => [
          item.value ?? "(none)",
          item.load,
          item.load_percent,
          (item.waits ?? []).map((wait) => `${wait.wait_event_type} ${wait.load}`).join(", "),
          item.query ?? null,
        ]),
      )}`,
    );
  },
});

export const getLockTree = defineTool({
  name: "get_lock_tree",
  privilege: "get_lock_tree",
  description:
    "Who blocked whom on a connection's server at a moment, from the raw session sample nearest it (within 5 minutes; raw samples are kept a short time): TSV depth first, each blocked session one level below the session it waits for, with its wait event, state, user, transaction start and query. Depth 0 is a session holding locks others wait for (often `idle in transaction`). Use it after get_database_load shows Lock waits.",
  compactDescription: "Lock tree (who blocks whom) at a moment.",
  input: {
    connection_id: rowIdArgument.optional().describe("Defaults to the selected connection"),
    at: timeArgument.default("now").describe('The moment: "now", "10m" (ago) or an ISO time'),
  },
  async run(context, args) {
    const { row } = await boundConnection(context, args);
    const moment = pointInTime(args.at, context.services.clock.now(), "at");
    const answer = await context.services.activity.sessionsAt(
      context.access,
      { kind: "connection", id: row.id },
      { at: moment },
    );
    const server = answer.servers[0];
    if (!server?.sampled_at) {
      return text(`No session sample of ${serverName(answer.scope)} within 5 minutes of ${answer.at}`);
    }
    const heading = `Sessions of ${serverName(answer.scope)} sampled at ${server.sampled_at} (nearest to ${answer.at}): ${server.session_count} active`;
    if (server.lock_tree.length === 0) {
      return text(`${heading}; none blocked another`);
    }
    return text(
      `${heading}\n${tsv(
        ["depth", "pid", "blocks", "state", "wait", "user", "xact_start", "query"],
        server.lock_tree.map((entry) => [
          entry.depth,
          entry.pid,
          entry.blocked_count,
          entry.state,
          `${entry.wait_event_type}:${entry.wait_event}`,
          entry.user_name,
          entry.xact_start,
          entry.query,
        ]),
      )}`,
    );
  },
});

export const activityTools = [getDatabaseLoad, getTopQueriesByLoad, getLockTree];
