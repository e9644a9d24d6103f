import type { Sql } from "@dbmon/datastore";
import { Cron } from "croner";
import { ApiError } from "../http/errors.js";
import { type ScopeInput, type Target, validTarget } from "./blackouts.js";

export interface ScheduleInput extends ScopeInput {
  name: string;
  cron_expression: string;
  duration_minutes: number;
  timezone?: string | undefined;
  reason: string;
  enabled?: boolean | undefined;
}

export interface ValidSchedule {
  target: Target;
  name: string;
  cron: string;
  durationMinutes: number;
  timezone: string;
  reason: string;
  enabled: boolean;
}

/** Checks a schedule: its scope, a 5-field cron expression and an IANA time zone (default UTC). */
export async function validSchedule(sql: Sql, input: ScheduleInput): Promise<ValidSchedule> {
  const target = await validTarget(sql, input);
  const timezone = input.timezone?.trim() || "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: timezone });
  } catch {
    throw new ApiError(400, `Invalid timezone: ${timezone}`);
  }
  const cron = input.cron_expression.trim().replace(/\s+/g, " ");
  if (cron.split(" ").length !== 5) {
    throw new ApiError(
      400,
      "Invalid cron expression: expected 5 fields (minute hour day-of-month month day-of-week)",
    );
  }
  try {
    new Cron(cron, { timezone, paused: true }).stop();
  } catch (error) {
    throw new ApiError(400, `Invalid cron expression: ${(error as Error).message}`);
  }
  return {
    target,
    name: input.name,
    cron,
    durationMinutes: input.duration_minutes,
    timezone,
    reason: input.reason,
    enabled: input.enabled ?? true,
  };
}
