import { MAX_INT4 } from "@dbmon/contract";
import { z } from "zod";

/**
 * Argument schemas shared by the MCP tools, bounded to what the datastore and the servers can hold,
 * so that an argument out of range is an `isError` result naming it (the catalogue checks the
 * arguments before a tool runs), never a failed query.
 */

/** The id of a row of the datastore (a connection, rule, memory…): a positive `integer` (int4). */
export const rowIdArgument = z.number().int().min(1).max(MAX_INT4);

/** Rows skipped by a paged listing: at most what an int4 offset holds. */
export const offsetArgument = z.number().int().min(0).max(MAX_INT4);

/**
 * A point in time as the caller writes it ("now", "24h", an ISO 8601 time), read by `pointInTime`,
 * which also checks its range. Short: no real time needs more, and nothing longer is parsed.
 */
export const timeArgument = z.string().max(64);

/** The page a listing tool returns: `limit` rows (1 to `maxLimit`) after skipping `offset`. */
export function pageArguments(defaultLimit: number, maxLimit: number) {
  return {
    limit: z.number().int().min(1).max(maxLimit).default(defaultLimit),
    offset: offsetArgument.default(0),
  };
}
