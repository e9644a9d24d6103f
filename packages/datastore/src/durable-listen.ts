import { randomUUID } from "node:crypto";
import type { Sql } from "./datastore.js";

/** The channel each process sends itself a token on, to learn whether its LISTEN session still works. */
const CHECK_CHANNEL = "dbmon_listen_check";

export interface DurableListener {
  unlisten(): Promise<void>;
}

interface Subscriber {
  onNotify(payload: string): void;
  onListen(): void;
}

/**
 * The LISTEN subscriptions of a process, kept through the datastore going away. postgres.js
 * subscribes again when its listening session closes, but once, at once: when the datastore is still
 * down (a restart, a failover) that attempt fails and the channel stays broken for good (its failed
 * subscription blocks every later one), so caches and collectors would wait for notifications that
 * never come. So the hub keeps its own listening client: every `checkMs` it sends itself a token;
 * when the previous one never came back, it drops that client and subscribes every channel on a new
 * one, and each subscriber's `onListen` runs (as on every subscription: what was sent meanwhile is
 * lost). One session for every channel of the process, as before.
 */
export class ListenHub {
  private client: Sql | undefined;
  private readonly channels = new Map<string, Set<Subscriber>>();
  private readonly handles = new Map<string, { unlisten(): Promise<void> }>();
  private awaited: string | undefined;
  /** A resubscription failed midway: the next check starts over. */
  private broken = false;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private closed = false;

  constructor(
    /** A new listening client (a pool of one, the driver's type lookup off). */
    private readonly open: () => Sql,
    /** Where the check's NOTIFY is sent from (the process's pool). */
    private readonly notifier: Sql,
    private readonly checkMs = 10_000,
  ) {}

  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen: () => void = () => {},
  ): Promise<DurableListener> {
    const subscriber: Subscriber = { onNotify, onListen };
    let subscribers = this.channels.get(channel);
    if (subscribers) {
      subscribers.add(subscriber);
      onListen();
    } else {
      subscribers = new Set([subscriber]);
      this.channels.set(channel, subscribers);
      if (!this.client) {
        await this.connect();
      } else {
        await this.subscribe(this.client, channel);
      }
    }
    this.startChecks();
    const set = subscribers;
    return {
      unlisten: async () => {
        set.delete(subscriber);
        if (set.size === 0 && this.channels.get(channel) === set) {
          this.channels.delete(channel);
          const handle = this.handles.get(channel);
          this.handles.delete(channel);
          await handle?.unlisten();
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end({ timeout: 1 });
  }

  /** A new listening client with every channel subscribed (the old one, if any, thrown away). */
  private async connect(): Promise<void> {
    const old = this.client;
    this.handles.clear();
    this.broken = true;
    void old?.end({ timeout: 0 }).catch(() => {});
    const client = this.open();
    this.client = client;
    await client.listen(CHECK_CHANNEL, (payload) => {
      if (payload === this.awaited) {
        this.awaited = undefined;
      }
    });
    for (const channel of this.channels.keys()) {
      await this.subscribe(client, channel);
    }
    this.awaited = undefined;
    this.broken = false;
  }

  private async subscribe(client: Sql, channel: string): Promise<void> {
    const each = (call: (subscriber: Subscriber) => void) => {
      for (const subscriber of this.channels.get(channel) ?? []) {
        call(subscriber);
      }
    };
    const handle = await client.listen(
      channel,
      (payload) => each((subscriber) => subscriber.onNotify(payload)),
      () => each((subscriber) => subscriber.onListen()),
    );
    this.handles.set(channel, handle);
  }

  private startChecks(): void {
    if (this.timer || this.closed) {
      return;
    }
    this.timer = setInterval(() => {
      if (this.checking || this.closed) {
        return;
      }
      this.checking = true;
      // A datastore still away fails here; the next check tries again.
      this.check()
        .catch(() => {})
        .finally(() => {
          this.checking = false;
        });
    }, this.checkMs);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    if (this.awaited !== undefined || this.broken) {
      await this.connect();
    }
    const token = randomUUID();
    this.awaited = token;
    await this.notifier`select pg_notify(${CHECK_CHANNEL}, ${token})`;
  }
}
