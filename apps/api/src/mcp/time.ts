import { InvalidInput } from "../errors.js";

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** How far back a relative time ("90m", "24h", "7d") reaches, in seconds; undefined if not relative. */
export function relativeSeconds(value: string): number | undefined {
  const match = /^(\d{1,6})\s*([smhdw])$/.exec(value.trim());
  return match ? Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number) : undefined;
}

/** A point in time: "now", a relative time before `now`, or an ISO 8601 timestamp. */
export function pointInTime(value: string, now: Date, name: string): Date {
  if (value.trim() === "now") {
    return now;
  }
  const seconds = relativeSeconds(value);
  if (seconds !== undefined) {
    return new Date(now.getTime() - seconds * 1000);
  }
  const parsed = new Date(value);
  if (Number.isNaN(parsed.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new InvalidInput(
      `${name} must be "now", a relative time such as "24h" or "7d", or an ISO 8601 time`,
    );
  }
  return parsed;
}
