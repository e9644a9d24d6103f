import { InvalidInput } from "../errors.js";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * The times a tool accepts: years 1 to 9999 (UTC), which PostgreSQL stores and which ISO 8601 writes
 * with four digits. Year 0 does not exist in PostgreSQL, and a time outside this range would only
 * fail later, as a query error.
 */
const EARLIEST_MS = Date.parse("0001-01-01T00:00:00.000Z");
const LATEST_MS = Date.parse("9999-12-31T23:59:59.999Z");

/** How far back a relative time ("90m", "24h", "7d") reaches, in seconds; undefined if not relative. */
export function relativeSeconds(value: string): number | undefined {
  const match = /^(\d{1,6})\s*([smhdw])$/.exec(value.trim());
  return match ? Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number) : undefined;
}

/**
 * A point in time: "now", a relative time before `now`, or an ISO 8601 timestamp whose date exists
 * (`Date` would turn February 30 into March 2), between years 1 and 9999.
 */
export function pointInTime(value: string, now: Date, name: string): Date {
  if (value.trim() === "now") {
    return now;
  }
  const seconds = relativeSeconds(value);
  const parsed = seconds === undefined ? isoTime(value) : new Date(now.getTime() - seconds * 1000);
  if (!parsed) {
    throw new InvalidInput(
      `${name} must be "now", a relative time such as "24h" or "7d", or an ISO 8601 time`,
    );
  }
  if (parsed.getTime() < EARLIEST_MS || parsed.getTime() > LATEST_MS) {
    throw new InvalidInput(`${name} must lie between the years 1 and 9999`);
  }
  return parsed;
}

/** An ISO 8601 time beginning with a calendar date that exists; null otherwise. */
function isoTime(value: string): Date | null {
  const date = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  const parsed = new Date(value);
  if (!date || Number.isNaN(parsed.getTime())) {
    return null;
  }
  const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
  const calendar = new Date(0);
  calendar.setUTCFullYear(year, month - 1, day);
  const exists =
    calendar.getUTCFullYear() === year &&
    calendar.getUTCMonth() === month - 1 &&
    calendar.getUTCDate() === day;
  return exists ? parsed : null;
}
