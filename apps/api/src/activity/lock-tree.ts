/** The least a session of one sample needs for the lock tree: its pid and whom it waits for. */
export interface BlockingSession {
  pid: number;
  blocking_pids: number[];
}

/** Most entries one tree holds (a session waiting for several is listed under each). */
const MAX_ENTRIES = 1000;

/**
 * Who blocks whom in one sample, depth first: a root is a session that blocks others while waiting
 * for no sampled session (or waits only for sessions the sample does not hold, such as dbmon's
 * own); each session waiting for it follows one level deeper, under each session it waits for.
 * Sessions in a cycle (a deadlock before PostgreSQL breaks it) are entered from their lowest pid,
 * and no path visits a session twice.
 */
export function lockTree<S extends BlockingSession>(
  sessions: readonly S[],
): (S & { depth: number; blocked_count: number })[] {
  const byPid = new Map(sessions.map((session) => [session.pid, session]));
  const waiters = new Map<number, S[]>();
  for (const session of sessions) {
    for (const blocker of new Set(session.blocking_pids)) {
      if (byPid.has(blocker) && blocker !== session.pid) {
        const list = waiters.get(blocker) ?? [];
        list.push(session);
        waiters.set(blocker, list);
      }
    }
  }
  const below = new Map<number, number>();
  const blockedCount = (pid: number): number => {
    const known = below.get(pid);
    if (known !== undefined) {
      return known;
    }
    const seen = new Set<number>([pid]);
    const stack = [pid];
    while (stack.length > 0) {
      for (const waiter of waiters.get(stack.pop() as number) ?? []) {
        if (!seen.has(waiter.pid)) {
          seen.add(waiter.pid);
          stack.push(waiter.pid);
        }
      }
    }
    below.set(pid, seen.size - 1);
    return seen.size - 1;
  };
  const waitsForSampled = (session: S) =>
    session.blocking_pids.some((pid) => pid !== session.pid && byPid.has(pid));
  const involved = sessions.filter((session) => waiters.has(session.pid) || session.blocking_pids.length > 0);
  const byLoad = (a: S, b: S) => blockedCount(b.pid) - blockedCount(a.pid) || a.pid - b.pid;
  const roots = involved.filter((session) => !waitsForSampled(session)).sort(byLoad);
  const entries: (S & { depth: number; blocked_count: number })[] = [];
  const visited = new Set<number>();
  const walk = (session: S, depth: number, path: Set<number>) => {
    if (entries.length >= MAX_ENTRIES || path.has(session.pid)) {
      return;
    }
    visited.add(session.pid);
    entries.push({ ...session, depth, blocked_count: blockedCount(session.pid) });
    path.add(session.pid);
    for (const waiter of [...(waiters.get(session.pid) ?? [])].sort((a, b) => a.pid - b.pid)) {
      walk(waiter, depth + 1, path);
    }
    path.delete(session.pid);
  };
  for (const root of roots) {
    walk(root, 0, new Set());
  }
  // What is left waits in a cycle: enter each cycle at its lowest pid.
  for (const session of [...involved].sort((a, b) => a.pid - b.pid)) {
    if (!visited.has(session.pid) && waiters.has(session.pid)) {
      walk(session, 0, new Set());
    }
  }
  return entries;
}
