import type { OverviewSchema } from "@dbmon/contract";
import type { Datastore } from "@dbmon/datastore";
import type { z } from "@hono/zod-openapi";

export type Overview = z.output<typeof OverviewSchema>;

/** The channel a stored overview's scope key is announced on, to the streams of every API instance. */
export const OVERVIEW_CHANNEL = "dbmon_overview";

/**
 * One stream's mailbox: it holds one overview, and an overview arriving while it is full is dropped
 * (a slow reader misses updates rather than making the server buffer them).
 */
export class OverviewSubscription {
  private pending: Overview | null = null;
  private wake: (() => void) | null = null;
  private lastGeneratedAt: string | null = null;
  private closed = false;
  /** Overviews dropped because the previous one had not been read yet. */
  dropped = 0;

  constructor(
    readonly key: string,
    private readonly onClose: (subscription: OverviewSubscription) => void,
  ) {}

  /** Hands an overview to the stream unless it already has it or one is waiting. */
  offer(overview: Overview): void {
    if (this.closed || overview.generated_at === this.lastGeneratedAt) {
      return;
    }
    if (this.pending !== null) {
      if (this.pending.generated_at !== overview.generated_at) {
        this.dropped += 1;
      }
      return;
    }
    this.pending = overview;
    this.wake?.();
  }

  /**
   * The next overview; `"idle"` when none arrived within `timeoutMs`, `"closed"` once the
   * subscription is closed.
   */
  async next(timeoutMs: number): Promise<Overview | "idle" | "closed"> {
    if (this.pending === null && !this.closed) {
      await new Promise<void>((resume) => {
        const timer = setTimeout(resume, timeoutMs);
        this.wake = () => {
          clearTimeout(timer);
          resume();
        };
      });
      this.wake = null;
    }
    if (this.closed) {
      return "closed";
    }
    const overview = this.pending;
    if (overview === null) {
      return "idle";
    }
    this.pending = null;
    this.lastGeneratedAt = overview.generated_at;
    return overview;
  }

  /** Ends the subscription: a waiting `next` returns, and the hub forgets it. */
  close(): void {
    if (!this.closed) {
      this.closed = true;
      this.pending = null;
      this.wake?.();
      this.onClose(this);
    }
  }
}

/**
 * The overview streams of this process, by scope key. A stored overview is announced with NOTIFY;
 * every instance that has streams on that key reads it once and offers it to them.
 */
export class OverviewHub {
  private readonly subscriptions = new Map<string, Set<OverviewSubscription>>();

  constructor(private readonly deps: { datastore: Datastore; load(key: string): Promise<Overview | null> }) {}

  /**
   * Starts receiving announcements (on the datastore's listening connection). When that connection
   * is re-established, announcements sent meanwhile are lost: every open stream's scope is read again.
   */
  async listen(): Promise<void> {
    await this.deps.datastore.listen(
      OVERVIEW_CHANNEL,
      (key) => {
        void this.deliver(key);
      },
      () => {
        for (const key of this.subscriptions.keys()) {
          void this.deliver(key);
        }
      },
    );
  }

  /** A new stream on `key`; `onClose` is told once when it ends (however it ends). */
  subscribe(key: string, onClose: () => void = () => {}): OverviewSubscription {
    const subscription = new OverviewSubscription(key, (closed) => {
      const set = this.subscriptions.get(closed.key);
      set?.delete(closed);
      if (set?.size === 0) {
        this.subscriptions.delete(closed.key);
      }
      onClose();
    });
    const set = this.subscriptions.get(key) ?? new Set();
    set.add(subscription);
    this.subscriptions.set(key, set);
    return subscription;
  }

  /** Ends every stream (at shutdown, so that open streams do not hold the server's close). */
  closeAll(): void {
    for (const set of [...this.subscriptions.values()]) {
      for (const subscription of [...set]) {
        subscription.close();
      }
    }
  }

  /** Open streams, over all keys. */
  get size(): number {
    let count = 0;
    for (const set of this.subscriptions.values()) {
      count += set.size;
    }
    return count;
  }

  private async deliver(key: string): Promise<void> {
    if (!this.subscriptions.has(key)) {
      return;
    }
    const overview = await this.deps.load(key).catch(() => null);
    if (overview) {
      for (const subscription of this.subscriptions.get(key) ?? []) {
        subscription.offer(overview);
      }
    }
  }
}
