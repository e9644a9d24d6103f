import { TooManyRequests } from "../errors.js";

/**
 * Counts the ad-hoc SQL sessions open at once, per user and per server, so that neither one caller
 * (through REST, MCP tools or a batch of MCP calls alike) nor all callers together can open more
 * sessions on a monitored server than an operator allows. A session over a limit is refused at
 * once (429), never queued: a queue would hold requests, and their memory, without bound.
 * The counts are this process's: several API processes each allow as many.
 */
export class SqlSessionLimiter {
  private readonly byUser = new Map<number, number>();
  private readonly byServer = new Map<string, number>();

  constructor(private readonly limits: { perUser: number; perServer: number }) {}

  /** Takes a session for the user on the server; the function returned gives it back (once). */
  acquire(userId: number, server: string): () => void {
    if ((this.byUser.get(userId) ?? 0) >= this.limits.perUser) {
      throw new TooManyRequests(
        `Too many SQL sessions: you may run ${this.limits.perUser} at once; wait for one to finish`,
        1,
      );
    }
    if ((this.byServer.get(server) ?? 0) >= this.limits.perServer) {
      throw new TooManyRequests(
        `Too many SQL sessions on this server: at most ${this.limits.perServer} run at once; try again shortly`,
        1,
      );
    }
    increment(this.byUser, userId, 1);
    increment(this.byServer, server, 1);
    let released = false;
    return () => {
      if (!released) {
        released = true;
        increment(this.byUser, userId, -1);
        increment(this.byServer, server, -1);
      }
    };
  }
}

function increment<K>(counts: Map<K, number>, key: K, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next > 0) {
    counts.set(key, next);
  } else {
    counts.delete(key);
  }
}
