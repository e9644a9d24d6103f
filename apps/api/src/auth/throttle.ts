import { type Datastore, schema } from "@dbmon/datastore";
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Clock } from "../clock.js";

const { loginThrottle } = schema;

/** Counters untouched for this long belong to no current window (the longest is a week). */
const STALE_AFTER_MS = 8 * 24 * 60 * 60 * 1000;

/**
 * Fixed-window counters kept in the datastore, so every API instance counts the same attempts: the
 * login limits', and those of anonymous model listings (keys are prefixed by what they count).
 * (rate-limiter-flexible would fit, but its PostgreSQL store needs the `pg` driver; a second
 * driver for one upsert is not worth it.)
 */
export class LoginThrottle {
  constructor(
    private readonly datastore: Datastore,
    private readonly clock: Clock,
  ) {}

  /** Counts one event under `key` and returns the count within the current window. */
  async hit(key: string, windowMs: number): Promise<number> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - windowMs);
    const expired = sql`${loginThrottle.windowStart} <= ${cutoff.toISOString()}::timestamptz`;
    const [row] = await this.datastore.db
      .insert(loginThrottle)
      .values({ key, windowStart: now, count: 1 })
      .onConflictDoUpdate({
        target: loginThrottle.key,
        set: {
          windowStart: sql`case when ${expired} then ${now.toISOString()}::timestamptz else ${loginThrottle.windowStart} end`,
          count: sql`case when ${expired} then 1 else ${loginThrottle.count} + 1 end`,
        },
      })
      .returning({ count: loginThrottle.count });
    const count = row?.count ?? 1;
    if (count === 1) {
      // A window just started: a good moment to forget the counters of addresses long gone.
      const stale = new Date(now.getTime() - STALE_AFTER_MS);
      await this.datastore.db.delete(loginThrottle).where(lt(loginThrottle.windowStart, stale));
    }
    return count;
  }

  /** The count under `key` within the current window, without counting. */
  async peek(key: string, windowMs: number): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - windowMs);
    const [row] = await this.datastore.db
      .select({ count: loginThrottle.count })
      .from(loginThrottle)
      .where(and(eq(loginThrottle.key, key), gt(loginThrottle.windowStart, cutoff)));
    return row?.count ?? 0;
  }

  async reset(key: string): Promise<void> {
    await this.datastore.db.delete(loginThrottle).where(eq(loginThrottle.key, key));
  }
}
