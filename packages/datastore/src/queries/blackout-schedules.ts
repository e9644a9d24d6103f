import { eq } from "drizzle-orm";
import type { Sql } from "../datastore.js";
import { blackoutSchedules } from "../schema/alerting.js";
import { drizzleOf } from "./drizzle.js";

export type BlackoutScheduleRow = typeof blackoutSchedules.$inferSelect;

/** The schedules the alerter opens windows for. */
export function enabledBlackoutSchedules(sql: Sql): Promise<BlackoutScheduleRow[]> {
  return drizzleOf(sql).select().from(blackoutSchedules).where(eq(blackoutSchedules.enabled, true));
}
