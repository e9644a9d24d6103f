import { BLACKOUT_PAGING } from "@dbmon/contract";
import { type BlackoutScheduleRow, type Datastore, schema } from "@dbmon/datastore";
import { Cron } from "croner";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { Visibility } from "../auth/visibility.js";
import { InvalidInput, NotFound } from "../errors.js";
import { type ScopedListQuery, type ScopeInput, scopeFilters, validTarget } from "./blackouts.js";
import { iso, page } from "./time.js";

const { blackoutSchedules } = schema;

export interface ScheduleInput extends ScopeInput {
  name: string;
  cron_expression: string;
  duration_minutes: number;
  timezone?: string | undefined;
  reason: string;
  enabled?: boolean | undefined;
}

/** Recurring blackouts; the alerter opens their windows. */
export class BlackoutScheduleService {
  constructor(private readonly datastore: Datastore) {}

  /** Visible schedules matching the query, by name, one page and the total. */
  async list(access: RequestAccess, query: ScopedListQuery & { enabled?: boolean | undefined }) {
    const visibility = await Visibility.of(access);
    const where = and(
      ...scopeFilters(blackoutSchedules, query),
      query.enabled === undefined ? undefined : eq(blackoutSchedules.enabled, query.enabled),
      visibility.scoped(blackoutSchedules),
    );
    const { limit, offset } = page(query.limit, query.offset, BLACKOUT_PAGING);
    const db = this.datastore.db;
    const [rows, [total]] = await Promise.all([
      db
        .select()
        .from(blackoutSchedules)
        .where(where)
        .orderBy(asc(blackoutSchedules.name), asc(blackoutSchedules.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(blackoutSchedules).where(where),
    ]);
    return { schedules: rows.map(presentSchedule), total_count: total?.n ?? 0 };
  }

  /** A schedule the caller sees, or NotFound. */
  async get(access: RequestAccess, id: number) {
    return presentSchedule(await this.read(await Visibility.of(access), id));
  }

  async create(access: RequestAccess, input: ScheduleInput) {
    const columns = await this.validColumns(await Visibility.of(access), input);
    const caller = await access.requireCaller();
    const [row] = await this.datastore.db
      .insert(blackoutSchedules)
      .values({ ...columns, createdBy: caller.username })
      .returning();
    return presentSchedule(row as BlackoutScheduleRow);
  }

  /** Replaces the whole schedule, one the caller sees, by one on a scope the caller sees. */
  async update(access: RequestAccess, id: number, input: ScheduleInput) {
    const visibility = await Visibility.of(access);
    await this.read(visibility, id);
    const columns = await this.validColumns(visibility, input);
    const [row] = await this.datastore.db
      .update(blackoutSchedules)
      .set({ ...columns, updatedAt: sql`now()` })
      .where(and(eq(blackoutSchedules.id, id), visibility.scoped(blackoutSchedules)))
      .returning();
    if (!row) {
      throw new NotFound("Blackout schedule not found");
    }
    return presentSchedule(row);
  }

  /** Deletes a schedule the caller sees; windows it already opened stay. */
  async remove(access: RequestAccess, id: number): Promise<void> {
    const visibility = await Visibility.of(access);
    const deleted = await this.datastore.db
      .delete(blackoutSchedules)
      .where(and(eq(blackoutSchedules.id, id), visibility.scoped(blackoutSchedules)))
      .returning({ id: blackoutSchedules.id });
    if (deleted.length === 0) {
      throw new NotFound("Blackout schedule not found");
    }
  }

  private async read(visibility: Visibility, id: number): Promise<BlackoutScheduleRow> {
    const [row] = await this.datastore.db
      .select()
      .from(blackoutSchedules)
      .where(and(eq(blackoutSchedules.id, id), visibility.scoped(blackoutSchedules)));
    if (!row) {
      throw new NotFound("Blackout schedule not found");
    }
    return row;
  }

  /**
   * The columns of a checked schedule: its scope (one the caller sees), a 5-field cron expression,
   * an IANA time zone (default UTC).
   */
  private async validColumns(visibility: Visibility, input: ScheduleInput) {
    const target = await validTarget(this.datastore, visibility, input);
    const timezone = input.timezone?.trim() || "UTC";
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: timezone });
    } catch {
      throw new InvalidInput(`Invalid timezone: ${timezone}`);
    }
    const cron = input.cron_expression.trim().replace(/\s+/g, " ");
    if (cron.split(" ").length !== 5) {
      throw new InvalidInput(
        "Invalid cron expression: expected 5 fields (minute hour day-of-month month day-of-week)",
      );
    }
    try {
      new Cron(cron, { timezone, paused: true }).stop();
    } catch (error) {
      throw new InvalidInput(`Invalid cron expression: ${(error as Error).message}`);
    }
    return {
      ...target,
      name: input.name,
      cronExpression: cron,
      durationMinutes: input.duration_minutes,
      timezone,
      reason: input.reason,
      enabled: input.enabled ?? true,
    };
  }
}

function presentSchedule(row: BlackoutScheduleRow) {
  return {
    id: row.id,
    scope: row.scope,
    group_id: row.groupId,
    cluster_id: row.clusterId,
    connection_id: row.connectionId,
    database_name: row.databaseName,
    name: row.name,
    cron_expression: row.cronExpression,
    duration_minutes: row.durationMinutes,
    timezone: row.timezone,
    reason: row.reason,
    enabled: row.enabled,
    created_by: row.createdBy,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
}
