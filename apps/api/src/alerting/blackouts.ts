import { BLACKOUT_PAGING } from "@dbmon/contract";
import { type Datastore, schema } from "@dbmon/datastore";
import { and, count, desc, eq, gte, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { type ScopeRef, Visibility } from "../auth/visibility.js";
import { notFound as clusterNotFound } from "../clusters/store.js";
import { InvalidInput, NotFound } from "../errors.js";
import { iso, page, parseRfc3339 } from "./time.js";

const { blackouts, connections } = schema;

export interface ScopeInput {
  scope: string;
  group_id?: number | null | undefined;
  cluster_id?: number | null | undefined;
  connection_id?: number | null | undefined;
  database_name?: string | null | undefined;
}

/** What a blackout or schedule applies to, checked. */
export interface Target extends ScopeRef {
  databaseName: string | null;
}

/** Filters and paging of the blackout and schedule listings. */
export interface ScopedListQuery {
  scope?: string | undefined;
  group_id?: number | undefined;
  cluster_id?: number | undefined;
  connection_id?: number | undefined;
  limit?: number | undefined;
  offset?: number | undefined;
}

const idNames = { group: "group_id", cluster: "cluster_id", server: "connection_id" } as const;

/** How a scope the caller cannot see is not found: as one that does not exist. */
const scopeNotFound = {
  group: clusterNotFound.group,
  cluster: clusterNotFound.cluster,
  server: clusterNotFound.connection,
} as const;

/**
 * The scope and its one id, as the reference words its refusals; the server's connection must
 * exist, and the caller must see the scope (nothing is created on, or moved to, a scope it cannot
 * see: that is not found).
 */
export async function validTarget(
  datastore: Datastore,
  visibility: Visibility,
  input: ScopeInput,
): Promise<Target> {
  const scope = input.scope;
  if (scope !== "estate" && scope !== "group" && scope !== "cluster" && scope !== "server") {
    throw new InvalidInput(`invalid scope: ${scope} (must be estate, group, cluster, or server)`);
  }
  const given = {
    group: input.group_id ?? null,
    cluster: input.cluster_id ?? null,
    server: input.connection_id ?? null,
  };
  for (const kind of ["group", "cluster", "server"] as const) {
    if (kind !== scope && given[kind] !== null) {
      throw new InvalidInput(`${scope} scope must not have ${idNames[kind]}`);
    }
  }
  if (scope !== "estate" && (given[scope] === null || (given[scope] as number) < 1)) {
    throw new InvalidInput(`${scope} scope requires ${idNames[scope]}`);
  }
  if (scope === "server") {
    const [row] = await datastore.db
      .select({ id: connections.id })
      .from(connections)
      .where(eq(connections.id, given.server as number));
    if (!row) {
      throw new NotFound(scopeNotFound.server);
    }
  }
  const target: ScopeRef = {
    scope,
    groupId: given.group,
    clusterId: given.cluster,
    connectionId: given.server,
  };
  if (scope !== "estate") {
    await visibility.requireScope(datastore.db, target, scopeNotFound[scope]);
  }
  const databaseName = input.database_name?.trim() ? input.database_name.trim() : null;
  return { ...target, databaseName };
}

/** Conditions of the listing filters shared by blackouts and schedules. */
export function scopeFilters(
  table: typeof blackouts | typeof schema.blackoutSchedules,
  query: ScopedListQuery,
) {
  return [
    query.scope ? eq(table.scope, query.scope) : undefined,
    query.group_id !== undefined ? eq(table.groupId, query.group_id) : undefined,
    query.cluster_id !== undefined ? eq(table.clusterId, query.cluster_id) : undefined,
    query.connection_id !== undefined ? eq(table.connectionId, query.connection_id) : undefined,
  ];
}

const isActive = sql<boolean>`(${blackouts.startTime} <= now() and now() <= ${blackouts.endTime})`;

const blackoutColumns = { blackout: blackouts, isActive };

type BlackoutRow = typeof blackouts.$inferSelect;

export interface BlackoutInput extends ScopeInput {
  reason: string;
  start_time: string;
  end_time: string;
}

/** Blackout windows: no new alerts for their scope while they last. */
export class BlackoutService {
  constructor(private readonly datastore: Datastore) {}

  /** Visible windows matching the query, newest start first, one page and the total. */
  async list(access: RequestAccess, query: ScopedListQuery & { active?: boolean | undefined }) {
    const visibility = await Visibility.of(access);
    const where = and(
      ...scopeFilters(blackouts, query),
      query.active === undefined ? undefined : sql`${isActive} = ${query.active}`,
      visibility.scoped(blackouts),
    );
    const { limit, offset } = page(query.limit, query.offset, BLACKOUT_PAGING);
    const db = this.datastore.db;
    const [rows, [total]] = await Promise.all([
      db
        .select(blackoutColumns)
        .from(blackouts)
        .where(where)
        .orderBy(desc(blackouts.startTime), desc(blackouts.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(blackouts).where(where),
    ]);
    return { blackouts: rows.map(presentBlackout), total_count: total?.n ?? 0 };
  }

  async get(access: RequestAccess, id: number) {
    return this.read(await Visibility.of(access), id);
  }

  async create(access: RequestAccess, input: BlackoutInput) {
    const start = parseRfc3339(input.start_time);
    if (!start) {
      throw new InvalidInput("Invalid start_time format, expected RFC3339");
    }
    const end = parseRfc3339(input.end_time);
    if (!end) {
      throw new InvalidInput("Invalid end_time format, expected RFC3339");
    }
    if (end <= start) {
      throw new InvalidInput("end_time must be after start_time");
    }
    const visibility = await Visibility.of(access);
    const target = await validTarget(this.datastore, visibility, input);
    const caller = await access.requireCaller();
    const [created] = await this.datastore.db
      .insert(blackouts)
      .values({
        ...target,
        reason: input.reason,
        startTime: start,
        endTime: end,
        createdBy: caller.username,
      })
      .returning({ id: blackouts.id });
    return this.read(visibility, created?.id ?? 0);
  }

  /** Changes the reason or the end (after the start) of a window the caller sees. */
  async update(
    access: RequestAccess,
    id: number,
    input: { reason?: string | undefined; end_time?: string | undefined },
  ) {
    const visibility = await Visibility.of(access);
    const existing = await this.read(visibility, id);
    let end: Date | undefined;
    if (input.end_time !== undefined) {
      end = parseRfc3339(input.end_time);
      if (!end) {
        throw new InvalidInput("Invalid end_time format, expected RFC3339");
      }
      if (end <= new Date(existing.start_time)) {
        throw new InvalidInput("end_time must be after start_time");
      }
    }
    if (input.reason !== undefined || end !== undefined) {
      await this.datastore.db
        .update(blackouts)
        .set({ reason: input.reason, endTime: end })
        .where(and(eq(blackouts.id, id), visibility.scoped(blackouts)));
    }
    return this.read(visibility, id);
  }

  /** Deletes a window the caller sees. */
  async remove(access: RequestAccess, id: number): Promise<void> {
    const visibility = await Visibility.of(access);
    const deleted = await this.datastore.db
      .delete(blackouts)
      .where(and(eq(blackouts.id, id), visibility.scoped(blackouts)))
      .returning({ id: blackouts.id });
    if (deleted.length === 0) {
      throw new NotFound("Blackout not found");
    }
  }

  /**
   * Ends a window the caller sees now; one that has not started yet ends before it starts, so it
   * never takes effect.
   */
  async stop(access: RequestAccess, id: number) {
    const visibility = await Visibility.of(access);
    const [stopped] = await this.datastore.db
      .update(blackouts)
      .set({ endTime: sql`now()`, startTime: sql`least(${blackouts.startTime}, now())` })
      .where(and(eq(blackouts.id, id), gte(blackouts.endTime, sql`now()`), visibility.scoped(blackouts)))
      .returning();
    if (!stopped) {
      throw new NotFound("Blackout not found or not currently active");
    }
    return presentBlackout({ blackout: stopped, isActive: false });
  }

  /** A window the caller sees, or NotFound. */
  private async read(visibility: Visibility, id: number) {
    const [row] = await this.datastore.db
      .select(blackoutColumns)
      .from(blackouts)
      .where(and(eq(blackouts.id, id), visibility.scoped(blackouts)));
    if (!row) {
      throw new NotFound("Blackout not found");
    }
    return presentBlackout(row);
  }
}

function presentBlackout({ blackout, isActive }: { blackout: BlackoutRow; isActive: boolean }) {
  return {
    id: blackout.id,
    scope: blackout.scope,
    group_id: blackout.groupId,
    cluster_id: blackout.clusterId,
    connection_id: blackout.connectionId,
    database_name: blackout.databaseName,
    reason: blackout.reason,
    start_time: iso(blackout.startTime),
    end_time: iso(blackout.endTime),
    created_by: blackout.createdBy,
    created_at: iso(blackout.createdAt),
    is_active: isActive,
  };
}
