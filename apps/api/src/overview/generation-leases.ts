import { randomUUID } from "node:crypto";
import type { Sql } from "@dbmon/datastore";

/** A lease lasts this long unless renewed; renewed every third of it while its holder works. */
const LEASE_MS = 90_000;
/** How often a caller waiting for another process's generation looks again. */
const WAIT_POLL_MS = 250;

/**
 * One overview generation per key over all API processes (`overview_generation_leases`). Unlike a
 * transaction-scoped advisory lock, a lease holds no datastore session while the LLM writes (a
 * session idle in a transaction for a minute holds back vacuum and a pool slot per scope).
 */
export class GenerationLeases {
  private readonly holder = `${process.pid}:${randomUUID()}`;

  constructor(private readonly sql: Sql) {}

  /** Runs `work` holding the key's lease, waiting until another holder releases it or it lapses. */
  async hold<T>(key: string, work: () => Promise<T>): Promise<T> {
    while (!(await this.tryAcquire(key))) {
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
    return this.holding(key, work);
  }

  /** Runs `work` holding the key's lease; null at once when another holder has it. */
  async tryHold<T>(key: string, work: () => Promise<T>): Promise<T | null> {
    return (await this.tryAcquire(key)) ? this.holding(key, work) : null;
  }

  private async holding<T>(key: string, work: () => Promise<T>): Promise<T> {
    const renewal = setInterval(() => {
      this.renew(key).catch(() => {
        // A failed renewal leaves the lease to lapse; the work still ends and releases it.
      });
    }, LEASE_MS / 3);
    renewal.unref();
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await this
        .sql`delete from overview_generation_leases where scope_key = ${key} and holder = ${this.holder}`;
    }
  }

  private async tryAcquire(key: string): Promise<boolean> {
    const taken = await this.sql`
      insert into overview_generation_leases (scope_key, holder, expires_at)
      values (${key}, ${this.holder}, now() + ${`${LEASE_MS} milliseconds`}::interval)
      on conflict (scope_key) do update set holder = excluded.holder, expires_at = excluded.expires_at
        where overview_generation_leases.expires_at < now()
      returning 1`;
    return taken.length > 0;
  }

  private async renew(key: string): Promise<void> {
    await this.sql`
      update overview_generation_leases set expires_at = now() + ${`${LEASE_MS} milliseconds`}::interval
      where scope_key = ${key} and holder = ${this.holder}`;
  }
}
