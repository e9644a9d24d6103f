/**
 * One session of a sampling tick, as `metrics.activity_samples` stores it: what the collector writes
 * (times as Dates) and the API reads back (times as RFC 3339 text, `Time`).
 */
export interface ActivitySampleOf<Time> {
  pid: number;
  database_name: string | null;
  user_name: string | null;
  application_name: string;
  client_addr: string | null;
  backend_type: string;
  state: string | null;
  wait_event_type: string | null;
  wait_event: string | null;
  /** int8 as text: query ids use all 64 bits. */
  query_id: string | null;
  query: string | null;
  xact_start: Time | null;
  query_start: Time | null;
  state_change: Time | null;
  blocking_pids: number[];
}

/**
 * What a per-minute aggregate counts samples by: the key of `activity_minutes` after connection and
 * minute, in the order of the sample's own columns.
 */
export const ACTIVITY_MINUTE_KEY = [
  "database_name",
  "user_name",
  "application_name",
  "client_addr",
  "backend_type",
  "state",
  "wait_event_type",
  "wait_event",
  "query_id",
] as const satisfies readonly (keyof ActivitySampleOf<unknown>)[];
