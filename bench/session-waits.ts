// What the children's datastore sessions wait on while they are in a statement or a transaction:
// whether the collector's store transactions wait on each other (locks), on the disk (WAL flushes at
// commit, I/O) or on the collector itself between statements (issue 28, item 2).
import type { Sql } from "../packages/datastore/src/index.js";

/** Where a busy session was when sampled. */
export type SessionState = "running" | "between statements" | "WAL and I/O" | "locks" | "other waits";

const STATES: readonly SessionState[] = [
  "running",
  "between statements",
  "WAL and I/O",
  "locks",
  "other waits",
];

function stateOf(state: string, waitType: string | null): SessionState {
  if (state.startsWith("idle in transaction")) {
    return "between statements";
  }
  if (waitType === null) {
    return "running";
  }
  if (waitType === "Lock") {
    return "locks";
  }
  // LWLock waits of busy sessions are WAL insertion and writing (WALWrite, WALInsert) as a rule.
  if (waitType === "IO" || waitType === "LWLock") {
    return "WAL and I/O";
  }
  return "other waits";
}

export interface SessionWaits {
  /** Stops sampling and answers the tallies per application name since `mark`. */
  stop(): Promise<Map<string, Map<SessionState, number>>>;
  /** Counts only samples taken from now on. */
  mark(): void;
}

/**
 * Samples every `intervalMs` the sessions of the benchmark's database named in `applications` that
 * are not idle, and tallies where each was.
 */
export function sampleSessionWaits(
  sql: Sql,
  applications: readonly string[],
  intervalMs: number,
): SessionWaits {
  let tallies = new Map<string, Map<SessionState, number>>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      const sessions = await sql<{ application: string; state: string; wait_type: string | null }[]>`
        select application_name as application, state, wait_event_type as wait_type
        from pg_stat_activity
        where datname = current_database() and application_name = any(${applications as string[]})
          and state is not null and state <> 'idle'`.catch(() => []);
      for (const session of sessions) {
        const tally = tallies.get(session.application) ?? new Map<SessionState, number>();
        const state = stateOf(session.state, session.wait_type);
        tally.set(state, (tally.get(state) ?? 0) + 1);
        tallies.set(session.application, tally);
      }
      await new Promise((done) => setTimeout(done, Math.max(0, at + intervalMs - Date.now())));
    }
  })();
  return {
    mark() {
      tallies = new Map();
    },
    async stop() {
      stopped = true;
      await loop;
      return tallies;
    },
  };
}

/** "x % running, y % between statements, ..." of one application's samples (n samples). */
export function describeWaits(tally: Map<SessionState, number> | undefined): string {
  const total = [...(tally?.values() ?? [])].reduce((sum, count) => sum + count, 0);
  if (!tally || total === 0) {
    return "no busy session sampled";
  }
  const parts = STATES.map((state) => `${((100 * (tally.get(state) ?? 0)) / total).toFixed(0)} % ${state}`);
  return `${parts.join(", ")} (${total} samples)`;
}
