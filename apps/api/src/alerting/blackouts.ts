import type { blackoutScopeFields } from "@dbmon/contract";
import { type Datastore, schema } from "@dbmon/datastore";
import { and, count, desc, eq, gte, sql } from "drizzle-orm";
import type { z } from "zod";
import type { RequestAccess } from "../auth/access.js";
import { type ScopeRef, storedScope, Visibility } from "../auth/visibility.js";
import { notFound as clusterNotFound } from "../clusters/store.js";
import { InvalidInput, NotFound } from "../errors.js";
import { type Page, withTotal } from "../paging.js";
import { iso } from "./time.js";

const { blackouts, connections } = schema;

/** The scope a caller chose for a blackout or schedule, not yet checked (`validTarget`). */
export interface ScopeChoice {
  scope: string;
  groupId: number | null;
  clusterId: number | null;
  connectionId: number | null;
  databaseName: string | null;
}

/** The scope fields of a blackout or schedule body, read as a choice. */
export function scopeChoiceOf(body: z.output<z.ZodObject<typeof blackoutScopeFields>>): ScopeChoice {
  return {
    scope: body.scope,
    groupId: body.group_id ?? null,
    clusterId: body.cluster_id ?? null,
    connectionId: body.connection_id ?? null,
    databaseName: body.database_name ?? null,
  };
}

/** What a blackout or schedule applies to, checked. */
export interface Target extends ScopeRef {
  databaseName: string | null;
}

/** Which blackouts or schedules to list, by their scope; every field narrows, an absent one does not. */
export interface ScopeFilter {
  scope?: string | undefined;
  groupId?: number | undefined;
  clusterId?: number | undefined;
  connectionId?: number | undefined;
}

/** The scope filter of the blackout and schedule listings' wire query (`blackoutListQuery`). */
export function scopeFilterOf(query: {
  scope?: string | undefined;
  group_id?: number | undefined;
  cluster_id?: number | undefined;
  connection_id?: number | undefined;
}): ScopeFilter {
  return {
    scope: query.scope || undefined,
    groupId: query.group_id,
    clusterId: query.cluster_id,
    connectionId: query.connection_id,
  };
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
 * see: that is not found) and every connection in it (a window there silences them all).
 */
export async function validTarget(
  datastore: Datastore,
  visibility: Visibility,
  choice: ScopeChoice,
): Promise<Target> {
  const scope = choice.scope;
  if (scope !== "estate" && scope !== "group" && scope !== "cluster" && scope !== "server") {
    throw new InvalidInput(`invalid scope: ${scope} (must be estate, group, cluster, or server)`);
  }
  const given = { group: choice.groupId, cluster: choice.clusterId, server: choice.connectionId };
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
  await visibility.requireWholeScope(datastore.db, target);
  const databaseName = choice.databaseName?.trim() ? choice.databaseName.trim() : null;
  return { ...target, databaseName };
}

/** Conditions of the listing filters shared by blackouts and schedules. */
export function scopeFilters(table: typeof blackouts | typeof schema.blackoutSchedules, filter: ScopeFilter) {
  return [
    filter.scope !== undefined ? eq(table.scope, filter.scope) : undefined,
    filter.groupId !== undefined ? eq(table.groupId, filter.groupId) : undefined,
    filter.clusterId !== undefined ? eq(table.clusterId, filter.clusterId) : undefined,
    filter.connectionId !== undefined ? eq(table.connectionId, filter.connectionId) : undefined,
  ];
}

const isActive = sql<boolean>`(${blackouts.startTime} <= now() and now() <= ${blackouts.endTime})`;

const blackoutColumns = { blackout: blackouts, isActive };

type BlackoutRow = typeof blackouts.$inferSelect;

/** A window as listed: its row and whether it is active now (by the datastore's clock). */
export interface ListedBlackout {
  blackout: BlackoutRow;
  isActive: boolean;
}

export interface BlackoutInput extends ScopeChoice {
  reason: string;
  start: Date;
  end: Date;
}

/** What a blackout's change may set: its reason, and its end (after its start). */
export interface BlackoutChange {
  reason?: string | undefined;
  end?: Date | undefined;
}

/** Blackout windows: no new alerts for their scope while they last. */
export class BlackoutService {
  constructor(private readonly datastore: Datastore) {}

  /**
   * Visible windows matching the filter (`active`: only those active now, or only those that are
   * not), newest start first: one page, filtered and paged in SQL, and the total of all that match.
   */
  async find(
    access: RequestAccess,
    filter: ScopeFilter & { active?: boolean | undefined },
    { limit, offset }: Page,
  ): Promise<{ blackouts: ListedBlackout[]; total: number }> {
    const visibility = await Visibility.of(access);
    const where = and(
      ...scopeFilters(blackouts, filter),
      filter.active === undefined ? undefined : sql`${isActive} = ${filter.active}`,
      visibility.scoped(blackouts),
    );
    const db = this.datastore.db;
    const { rows, total } = await withTotal(
      db
        .select(blackoutColumns)
        .from(blackouts)
        .where(where)
        .orderBy(desc(blackouts.startTime), desc(blackouts.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(blackouts).where(where),
    );
    return { blackouts: rows, total };
  }

  /** A window the caller sees, or NotFound. */
  async get(access: RequestAccess, id: number): Promise<ListedBlackout> {
    return this.read(await Visibility.of(access), id);
  }

  async create(access: RequestAccess, input: BlackoutInput): Promise<ListedBlackout> {
    if (input.end <= input.start) {
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
        startTime: input.start,
        endTime: input.end,
        createdBy: caller.username,
      })
      .returning({ id: blackouts.id });
    return this.read(visibility, created?.id ?? 0);
  }

  /** Changes the reason or the end (after the start) of a window the caller sees. */
  async update(access: RequestAccess, id: number, change: BlackoutChange): Promise<ListedBlackout> {
    const visibility = await Visibility.of(access);
    const existing = await this.changeable(visibility, id, "Blackout not found");
    if (change.end !== undefined && change.end <= existing.startTime) {
      throw new InvalidInput("end_time must be after start_time");
    }
    if (change.reason !== undefined || change.end !== undefined) {
      await this.datastore.db
        .update(blackouts)
        .set({ reason: change.reason, endTime: change.end })
        .where(and(eq(blackouts.id, id), visibility.scoped(blackouts)));
    }
    return this.read(visibility, id);
  }

  /** Deletes a window the caller sees. */
  async remove(access: RequestAccess, id: number): Promise<void> {
    const visibility = await Visibility.of(access);
    await this.changeable(visibility, id, "Blackout not found");
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
  async stop(access: RequestAccess, id: number): Promise<ListedBlackout> {
    const visibility = await Visibility.of(access);
    await this.changeable(visibility, id, "Blackout not found or not currently active");
    const [stopped] = await this.datastore.db
      .update(blackouts)
      .set({ endTime: sql`now()`, startTime: sql`least(${blackouts.startTime}, now())` })
      .where(and(eq(blackouts.id, id), gte(blackouts.endTime, sql`now()`), visibility.scoped(blackouts)))
      .returning();
    if (!stopped) {
      throw new NotFound("Blackout not found or not currently active");
    }
    return { blackout: stopped, isActive: false };
  }

  /**
   * A window the caller sees (else NotFound) and may change: it sees every connection of the
   * window's scope (else Forbidden, `requireWholeScope`).
   */
  private async changeable(visibility: Visibility, id: number, notFound: string) {
    const [row] = await this.datastore.db
      .select()
      .from(blackouts)
      .where(and(eq(blackouts.id, id), visibility.scoped(blackouts)));
    if (!row) {
      throw new NotFound(notFound);
    }
    await visibility.requireWholeScope(this.datastore.db, storedScope(row));
    return row;
  }

  private async read(visibility: Visibility, id: number): Promise<ListedBlackout> {
    const [row] = await this.datastore.db
      .select(blackoutColumns)
      .from(blackouts)
      .where(and(eq(blackouts.id, id), visibility.scoped(blackouts)));
    if (!row) {
      throw new NotFound("Blackout not found");
    }
    return row;
  }
}

/** What a blackout or schedule applies to, as the wire shows it (`blackoutScopeOutput`). */
export function presentScope(row: {
  scope: string;
  groupId: number | null;
  clusterId: number | null;
  connectionId: number | null;
  databaseName: string | null;
}) {
  return {
    scope: row.scope,
    group_id: row.groupId,
    cluster_id: row.clusterId,
    connection_id: row.connectionId,
    database_name: row.databaseName,
  };
}

/** A window as the wire (GET /blackouts, the MCP tools) shows it. */
export function presentBlackout({ blackout, isActive }: ListedBlackout) {
  return {
    id: blackout.id,
    ...presentScope(blackout),
    reason: blackout.reason,
    start_time: iso(blackout.startTime),
    end_time: iso(blackout.endTime),
    created_by: blackout.createdBy,
    created_at: iso(blackout.createdAt),
    is_active: isActive,
  };
}
