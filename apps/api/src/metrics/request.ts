import type { RequestAccess } from "../auth/access.js";
import { InvalidInput } from "../errors.js";

export const RANGE_SECONDS = { "1h": 3600, "6h": 21600, "24h": 86400, "7d": 604800, "30d": 2592000 } as const;

/**
 * The window a summary covers, in epoch seconds, and the width of its sampling steps (a sixtieth of
 * the range, at least ten seconds).
 */
export function summaryWindow(now: Date, timeRange: keyof typeof RANGE_SECONDS) {
  const end = now.getTime() / 1000;
  const range = RANGE_SECONDS[timeRange];
  return { start: end - range, width: Math.max(range / 60, 10) };
}

/** The connections a wire query names: connection_ids wins over connection_id; one of them is required. */
export function requestedConnections(query: { connection_id?: number; connection_ids?: number[] }): number[] {
  if (query.connection_ids && query.connection_ids.length > 0) {
    return query.connection_ids;
  }
  if (query.connection_id !== undefined) {
    return [query.connection_id];
  }
  throw new InvalidInput("Either connection_id or connection_ids is required");
}

/** The one connection a wire query names (connection_ids, when given, must hold exactly one). */
export function requestedConnection(query: { connection_id?: number; connection_ids?: number[] }): number {
  const ids = query.connection_ids ?? (query.connection_id === undefined ? [] : [query.connection_id]);
  const [id] = ids;
  if (ids.length !== 1 || id === undefined) {
    throw new InvalidInput("Exactly one connection_id is required");
  }
  return id;
}

/** The schemas a wire query leaves out: `none` for none, absent for the default ones. */
export function excludedSchemas(list: string[] | undefined): string[] | undefined {
  return list?.length === 1 && list[0] === "none" ? [] : list;
}

/** 403 for the first connection the caller may not read (unknown ones included). */
export async function requireReadable(access: RequestAccess, ids: readonly number[]): Promise<void> {
  for (const id of ids) {
    await access.require(
      {
        connection: { query: "connection_id", level: "read" },
        message: `Permission denied: you do not have access to connection ${id}`,
      },
      id,
    );
  }
}

/** Rounds to `digits` decimals; null stays null. */
export function round(value: number | null, digits: number): number | null {
  if (value === null || !Number.isFinite(value)) {
    return null;
  }
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

export function dateFromEpoch(seconds: number): Date {
  return new Date(seconds * 1000);
}
