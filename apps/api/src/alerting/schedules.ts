import type { BlackoutScheduleRequestSchema } from "@dbmon/contract";
import { type BlackoutScheduleRow, type Datastore, schema } from "@dbmon/datastore";
import { Cron } from "croner";
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { z } from "zod";
import type { RequestAccess } from "../auth/access.js";
import { storedScope, Visibility } from "../auth/visibility.js";
import { InvalidInput, NotFound } from "../errors.js";
import { type Page, withTotal } from "../paging.js";
import {
  presentScope,
  type ScopeChoice,
  type ScopeFilter,
  scopeChoiceOf,
  scopeFilters,
  validTarget,
} from "./blackouts.js";
import { iso } from "./time.js";

const { blackoutSchedules } = schema;

export interface ScheduleInput extends ScopeChoice {
  name: string;
  cronExpression: string;
  durationMinutes: number;
  /** IANA zone of the cron expression; UTC when absent or blank. */
  timezone: string | undefined;
  reason: string;
  enabled: boolean;
}

/** Recurring blackouts; the alerter opens their windows. */
export class BlackoutScheduleService {
  constructor(private readonly datastore: Datastore) {}

  /**
   * Visible schedules matching the filter, by name: one page, filtered and paged in SQL, and the
   * total of all that match.
   */
  async find(
    access: RequestAccess,
    filter: ScopeFilter & { enabled?: boolean | undefined },
    { limit, offset }: Page,
  ): Promise<{ schedules: BlackoutScheduleRow[]; total: number }> {
    const visibility = await Visibility.of(access);
    const where = and(
      ...scopeFilters(blackoutSchedules, filter),
      filter.enabled === undefined ? undefined : eq(blackoutSchedules.enabled, filter.enabled),
      visibility.scoped(blackoutSchedules),
    );
    const db = this.datastore.db;
    const { rows, total } = await withTotal(
      db
        .select()
        .from(blackoutSchedules)
        .where(where)
        .orderBy(asc(blackoutSchedules.name), asc(blackoutSchedules.id))
        .limit(limit)
        .offset(offset),
      db.select({ n: count() }).from(blackoutSchedules).where(where),
    );
    return { schedules: rows, total };
  }

  /** A schedule the caller sees, or NotFound. */
  async get(access: RequestAccess, id: number): Promise<BlackoutScheduleRow> {
    return this.read(await Visibility.of(access), id);
  }

  async create(access: RequestAccess, input: ScheduleInput): Promise<BlackoutScheduleRow> {
    const columns = await this.validColumns(await Visibility.of(access), input);
    const caller = await access.requireCaller();
    const [row] = await this.datastore.db
      .insert(blackoutSchedules)
      .values({ ...columns, createdBy: caller.username })
      .returning();
    return row as BlackoutScheduleRow;
  }

  /** Replaces the whole schedule, one the caller sees, by one on a scope the caller sees. */
  async update(access: RequestAccess, id: number, input: ScheduleInput): Promise<BlackoutScheduleRow> {
    const visibility = await Visibility.of(access);
    await visibility.requireWholeScope(this.datastore.db, storedScope(await this.read(visibility, id)));
    const columns = await this.validColumns(visibility, input);
    const [row] = await this.datastore.db
      .update(blackoutSchedules)
      .set({ ...columns, updatedAt: sql`now()` })
      .where(and(eq(blackoutSchedules.id, id), visibility.scoped(blackoutSchedules)))
      .returning();
    if (!row) {
      throw new NotFound("Blackout schedule not found");
    }
    return row;
  }

  /** Deletes a schedule the caller sees; windows it already opened stay. */
  async remove(access: RequestAccess, id: number): Promise<void> {
    const visibility = await Visibility.of(access);
    await visibility.requireWholeScope(this.datastore.db, storedScope(await this.read(visibility, id)));
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
    const cron = input.cronExpression.trim().replace(/\s+/g, " ");
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
      durationMinutes: input.durationMinutes,
      timezone,
      reason: input.reason,
      enabled: input.enabled,
    };
  }
}

/** A schedule body read as the service's input (`enabled` defaults to true). */
export function scheduleInputOf(body: z.output<typeof BlackoutScheduleRequestSchema>): ScheduleInput {
  return {
    ...scopeChoiceOf(body),
    name: body.name,
    cronExpression: body.cron_expression,
    durationMinutes: body.duration_minutes,
    timezone: body.timezone,
    reason: body.reason,
    enabled: body.enabled ?? true,
  };
}

/** A schedule as the wire (GET /blackout-schedules, the MCP tools) shows it. */
export function presentSchedule(row: BlackoutScheduleRow) {
  return {
    id: row.id,
    ...presentScope(row),
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
