import {
  type ActivityDimensionName,
  MAX_ACTIVITY_QUERY_LENGTH,
  MAX_ACTIVITY_SERIES,
  MAX_ACTIVITY_SESSIONS,
} from "@dbmon/contract";
import {
  type ActivityLoad,
  type ActivityLoadRequest,
  type ActivityTop,
  type ActivityTopRequest,
  type ActivityWindow,
  activityLoad,
  activitySessionsNear,
  activityTop,
  alignedWindow,
  type Datastore,
  type DimensionValue,
  hostVcpus,
  queryTexts,
} from "@dbmon/datastore";
import type { RequestAccess } from "../auth/access.js";
import type { Clock } from "../clock.js";
import type { ClusterService } from "../clusters/service.js";
import { NotFound } from "../errors.js";
import {
  type ActivityLoadView,
  type ActivityScopeView,
  type ActivitySessionsView,
  type ActivityTopView,
  type PresentationContext,
  presentLoad,
  presentSessions,
  presentTop,
} from "./present.js";
import { bucketSeconds, requestedWindow } from "./window.js";

/** What an activity operation is about: one connection, or a cluster's or a group's connections. */
export interface ActivityTarget {
  kind: "connection" | "cluster" | "group";
  id: number;
}

export interface WindowQuery {
  start_time?: Date | undefined;
  end_time?: Date | undefined;
}

export interface LoadQuery extends WindowQuery {
  dimension: ActivityDimensionName;
  bucket_seconds?: number | undefined;
  series?: number | undefined;
}

export interface TopQuery extends WindowQuery {
  dimension: ActivityDimensionName;
  limit?: number | undefined;
}

export interface SessionsQuery {
  at?: Date | undefined;
  limit?: number | undefined;
}

const DEFAULT_SERIES = 10;
const DEFAULT_TOP = 10;
const MAX_TOP = 100;
const DEFAULT_SESSIONS = 200;
/** How far from the moment asked a sample may be. */
const NEAREST_SAMPLE_SECONDS = 300;

/**
 * Database load and sessions from active session history (issue 26). `load` and `top` take domain
 * inputs (connections, a window, a bucket width, a dimension) for callers that decided access
 * themselves (the bench, MCP tools through their own checks); the `…Of` and `sessionsAt` methods
 * resolve what a request names, with the caller's visibility, and answer the wire's shapes.
 */
export class ActivityService {
  constructor(private readonly deps: { datastore: Datastore; clock: Clock; clusters: ClusterService }) {}

  /** Average active sessions per bucket, grouped by a dimension, over the connections together. */
  load(request: ActivityLoadRequest): Promise<ActivityLoad> {
    return activityLoad(this.deps.datastore.sql, request);
  }

  /** The values of a dimension with the most load over a window. */
  top(request: ActivityTopRequest): Promise<ActivityTop> {
    return activityTop(this.deps.datastore.sql, request);
  }

  async loadOf(access: RequestAccess, target: ActivityTarget, query: LoadQuery): Promise<ActivityLoadView> {
    const requested = requestedWindow(this.deps.clock.now(), query);
    const width = bucketSeconds(requested, query.bucket_seconds);
    const scope = await this.scope(access, target);
    const window = { connectionIds: scope.view.servers.map((server) => server.connection_id), ...requested };
    // The contract's dimensions are the datastore's (a type error here otherwise).
    const result = await this.load({
      ...window,
      bucketSeconds: width,
      dimension: query.dimension,
      seriesLimit: Math.min(query.series ?? DEFAULT_SERIES, MAX_ACTIVITY_SERIES),
    });
    const context = await this.context(scope, query.dimension, window, result.series);
    return presentLoad(result, alignedWindow(requested.start, requested.end, width), width, context);
  }

  async topOf(access: RequestAccess, target: ActivityTarget, query: TopQuery): Promise<ActivityTopView> {
    const requested = requestedWindow(this.deps.clock.now(), query);
    const scope = await this.scope(access, target);
    const window = { connectionIds: scope.view.servers.map((server) => server.connection_id), ...requested };
    const result = await this.top({
      ...window,
      dimension: query.dimension,
      limit: Math.min(query.limit ?? DEFAULT_TOP, MAX_TOP),
    });
    const minutes = alignedWindow(requested.start, requested.end, 60);
    return presentTop(result, minutes, await this.context(scope, query.dimension, window, result.values));
  }

  /** Each server's raw sample nearest the moment, with its lock tree. */
  async sessionsAt(
    access: RequestAccess,
    target: ActivityTarget,
    query: SessionsQuery,
  ): Promise<ActivitySessionsView> {
    const moment = query.at ?? this.deps.clock.now();
    const limit = Math.min(query.limit ?? DEFAULT_SESSIONS, MAX_ACTIVITY_SESSIONS);
    const scope = await this.scope(access, target);
    const { rows, truncated } = await activitySessionsNear(this.deps.datastore.sql, {
      connectionIds: scope.view.servers.map((server) => server.connection_id),
      at: moment,
      nearestSeconds: NEAREST_SAMPLE_SECONDS,
      limit,
      queryChars: MAX_ACTIVITY_QUERY_LENGTH,
    });
    return presentSessions(scope.view, moment, rows, truncated);
  }

  /**
   * The servers a target names that the caller can see, with their vCPUs, and the vCPUs of their
   * hosts together (a host that several connections reach is counted once).
   */
  private async scope(
    access: RequestAccess,
    target: ActivityTarget,
  ): Promise<{ view: ActivityScopeView; vcpus: number | null }> {
    let name: string;
    let members: { id: number; name: string }[];
    if (target.kind === "connection") {
      await access.require({ connection: { param: "id", level: "read" } }, target.id);
      const [row] = await this.deps.datastore.sql<{ id: number; name: string }[]>`
        select id, name from connections where id = ${target.id}`;
      if (!row) {
        throw new NotFound("Connection not found");
      }
      name = row.name;
      members = [row];
    } else {
      ({ name, members } = await this.deps.clusters.visibleMembers(access, target.kind, target.id));
    }
    const vcpus = await hostVcpus(
      this.deps.datastore.sql,
      members.map((member) => member.id),
    );
    const hosts = new Map([...vcpus.values()].map((host) => [host.host, host.vcpus]));
    return {
      view: {
        kind: target.kind,
        id: target.id,
        name,
        servers: members.map((member) => ({
          connection_id: member.id,
          name: member.name,
          vcpus: vcpus.get(member.id)?.vcpus ?? null,
        })),
      },
      vcpus: hosts.size === 0 ? null : [...hosts.values()].reduce((sum, count) => sum + count, 0),
    };
  }

  /** The presenters' context: the texts of the query ids shown, when grouping by query. */
  private async context(
    { view: scope, vcpus }: { view: ActivityScopeView; vcpus: number | null },
    dimension: ActivityDimensionName,
    window: ActivityWindow,
    values: readonly DimensionValue[],
  ): Promise<PresentationContext> {
    const ids =
      dimension === "query" ? values.flatMap((value) => (value.key === null ? [] : [value.key])) : [];
    return { scope, vcpus, dimension, queryTexts: await queryTexts(this.deps.datastore.sql, window, ids) };
  }
}
