import {
  type ActivityDimensionName,
  type ActivityLoadSchema,
  type ActivityScopeSchema,
  type ActivitySessionSchema,
  type ActivitySessionsSchema,
  type ActivityTopSchema,
  MAX_ACTIVITY_QUERY_LENGTH,
} from "@dbmon/contract";
import {
  type ActivityLoad,
  type ActivitySessionRow,
  type ActivityTop,
  CPU,
  type DimensionValue,
} from "@dbmon/datastore";
import type { z } from "@hono/zod-openapi";
import { round } from "../metrics/request.js";
import { lockTree } from "./lock-tree.js";
import type { TimeWindow } from "./window.js";

/**
 * Activity as the wire carries it, for the REST operations and the MCP tools alike: rows of the
 * datastore's activity queries in, the contract's shapes out.
 */

export type ActivityScopeView = z.output<typeof ActivityScopeSchema>;
export type ActivityLoadView = z.output<typeof ActivityLoadSchema>;
export type ActivityTopView = z.output<typeof ActivityTopSchema>;
export type ActivitySessionsView = z.output<typeof ActivitySessionsSchema>;
export type ActivitySessionView = z.output<typeof ActivitySessionSchema>;

/** Loads to a thousandth of a session: enough for a chart, short on the wire. */
const LOAD_DIGITS = 3;
/** The start of a query's text that labels it. */
const LABEL_LENGTH = 80;

/** What the presenters need beside the rows: the scope, its vCPUs and the texts of the query ids shown. */
export interface PresentationContext {
  scope: ActivityScopeView;
  /** The logical processors of the scope's hosts, each host counted once; null when none is known. */
  vcpus: number | null;
  dimension: ActivityDimensionName;
  queryTexts: ReadonlyMap<string, string>;
}

/** Query text capped to what an answer carries. */
export function cappedQuery(text: string | null | undefined): string | null {
  return text === null || text === undefined ? null : text.slice(0, MAX_ACTIVITY_QUERY_LENGTH);
}

/** One value of the dimension: its wire value, a label for people and what goes with it. */
function presentValue(value: DimensionValue, context: PresentationContext) {
  const { dimension, queryTexts, scope } = context;
  if (dimension === "wait_event") {
    const type = value.detail ?? CPU;
    return {
      value: value.key,
      label: type === CPU ? CPU : `${type}: ${value.key ?? "(unknown)"}`,
      wait_event_type: type,
    };
  }
  if (dimension === "query") {
    const query = value.key === null ? null : cappedQuery(queryTexts.get(value.key));
    const label =
      value.key === null
        ? "(no query id)"
        : query === null
          ? `query ${value.key}`
          : query.replace(/\s+/g, " ").trim().slice(0, LABEL_LENGTH);
    return { value: value.key, label, query };
  }
  if (dimension === "server") {
    const server = scope.servers.find((one) => String(one.connection_id) === value.key);
    return { value: value.key, label: server?.name ?? `connection ${value.key}` };
  }
  return { value: value.key, label: value.key === null || value.key === "" ? "(none)" : value.key };
}

const load = (value: number | null) => round(value, LOAD_DIGITS);
const loads = (values: (number | null)[]) => values.map(load);

export function presentLoad(
  result: ActivityLoad,
  window: TimeWindow,
  bucketSeconds: number,
  context: PresentationContext,
): ActivityLoadView {
  return {
    scope: context.scope,
    start_time: window.start.toISOString(),
    end_time: window.end.toISOString(),
    bucket_seconds: bucketSeconds,
    dimension: context.dimension,
    vcpus: context.vcpus,
    average_load: load(result.average),
    times: result.bucketStarts.map((start) => start.toISOString()),
    total: loads(result.total),
    series: result.series.map((series) => ({
      ...presentValue(series, context),
      average_load: load(series.average) ?? 0,
      load: loads(series.points),
    })),
    other: result.other && {
      average_load: load(result.other.average) ?? 0,
      load: loads(result.other.points),
    },
  };
}

const WAIT_DIMENSIONS: readonly ActivityDimensionName[] = ["wait_event_type", "wait_event"];

export function presentTop(
  result: ActivityTop,
  window: TimeWindow,
  context: PresentationContext,
): ActivityTopView {
  const total = result.average ?? 0;
  return {
    scope: context.scope,
    start_time: window.start.toISOString(),
    end_time: window.end.toISOString(),
    dimension: context.dimension,
    vcpus: context.vcpus,
    average_load: load(result.average),
    items: result.values.map((value) => ({
      ...presentValue(value, context),
      load: load(value.load) ?? 0,
      load_percent: round(total > 0 ? (value.load / total) * 100 : 0, 1) ?? 0,
      ...(WAIT_DIMENSIONS.includes(context.dimension)
        ? {}
        : {
            waits: value.waits.map((wait) => ({
              wait_event_type: wait.waitEventType,
              load: load(wait.load) ?? 0,
            })),
          }),
    })),
  };
}

export function presentSession(row: ActivitySessionRow): ActivitySessionView {
  const waiting = row.wait_event_type !== null && row.wait_event_type !== "";
  return {
    pid: row.pid,
    database_name: row.database_name,
    user_name: row.user_name,
    application_name: row.application_name,
    client_addr: row.client_addr,
    backend_type: row.backend_type,
    state: row.state,
    wait_event_type: waiting ? row.wait_event_type : CPU,
    wait_event: waiting ? row.wait_event : CPU,
    query_id: row.query_id === null || row.query_id === "0" ? null : row.query_id,
    query: cappedQuery(row.query),
    xact_start: row.xact_start,
    query_start: row.query_start,
    state_change: row.state_change,
    blocking_pids: row.blocking_pids,
  };
}

/** Each server of the scope with the sample nearest the moment (rows ordered as they are to be shown). */
export function presentSessions(
  scope: ActivityScopeView,
  at: Date,
  rows: readonly ActivitySessionRow[],
  truncated: boolean,
): ActivitySessionsView {
  return {
    scope,
    at: at.toISOString(),
    servers: scope.servers.map((server) => {
      const mine = rows.filter((row) => row.connection_id === server.connection_id);
      const sessions = mine.map(presentSession);
      return {
        connection_id: server.connection_id,
        name: server.name,
        sampled_at: mine[0]?.sampled_at ?? null,
        session_count: mine[0]?.session_count ?? 0,
        sessions,
        lock_tree: lockTree(sessions).map(
          ({ client_addr: _a, backend_type: _b, query_id: _q, state_change: _s, ...entry }) => entry,
        ),
      };
    }),
    truncated,
  };
}
