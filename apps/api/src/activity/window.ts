import { MAX_ACTIVITY_BUCKETS, MAX_ACTIVITY_WINDOW_DAYS } from "@dbmon/contract";
import { InvalidInput } from "../errors.js";

const HOUR_MS = 3_600_000;

/** Bucket widths offered by default, in seconds: round numbers on a chart's axis. */
const DEFAULT_WIDTHS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400];
/** Buckets a default width aims at: enough for a chart, few enough for a small answer. */
const DEFAULT_BUCKETS = 120;

export interface TimeWindow {
  start: Date;
  end: Date;
}

/** The window a request names: end_time (default now) and start_time (default an hour before it). */
export function requestedWindow(
  now: Date,
  query: { start_time?: Date | undefined; end_time?: Date | undefined },
): TimeWindow {
  const end = query.end_time ?? now;
  const start = query.start_time ?? new Date(end.getTime() - HOUR_MS);
  if (start.getTime() >= end.getTime()) {
    throw new InvalidInput("start_time must be before end_time");
  }
  if (end.getTime() - start.getTime() > MAX_ACTIVITY_WINDOW_DAYS * 24 * HOUR_MS) {
    throw new InvalidInput(`The window may span at most ${MAX_ACTIVITY_WINDOW_DAYS} days`);
  }
  return { start, end };
}

/**
 * The bucket width of a load answer: the one asked for, if the window holds at most
 * MAX_ACTIVITY_BUCKETS of them; otherwise the narrowest default width giving at most 120 buckets.
 */
export function bucketSeconds(window: TimeWindow, requested: number | undefined): number {
  const seconds = (window.end.getTime() - window.start.getTime()) / 1000;
  if (requested !== undefined) {
    // The window is aligned to whole buckets: one more bucket at most.
    if (Math.ceil(seconds / requested) + 1 > MAX_ACTIVITY_BUCKETS) {
      throw new InvalidInput(
        `Too many buckets: at most ${MAX_ACTIVITY_BUCKETS}; widen bucket_seconds or narrow the window`,
      );
    }
    return requested;
  }
  return DEFAULT_WIDTHS.find((width) => seconds / width <= DEFAULT_BUCKETS) ?? 86_400;
}
