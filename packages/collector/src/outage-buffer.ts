import type { CollectorLogger } from "./logger.js";
import type { ProbeRow, ProbeSpec } from "./probes/types.js";

/** A collected run not yet stored: what `storeServerRun` (or `storeServerWideRun`) takes. */
export interface CollectedRun {
  probe: ProbeSpec;
  connectionIds: readonly number[];
  collectedAt: Date;
  rows: readonly ProbeRow[] | null;
  /** A server-wide probe's run, stored once for the server of `connectionIds`. */
  serverWide: boolean;
}

interface Held extends CollectedRun {
  bytes: number;
}

/** How a buffered run is written: resolves when stored (or refused for a lost lease), throws otherwise. */
export type WriteRun = (run: CollectedRun) => Promise<void>;

/**
 * Collected runs held in memory while the datastore is unavailable, oldest first, within `maxBytes`
 * (the rows' size as JSON, which is about what they cost in memory and on the wire). When a new run
 * does not fit, the oldest runs are dropped: the newest data is worth the most once the datastore is
 * back. Runs are written in the order they were collected, so a snapshot probe's hash and a probe's
 * last run stay in order; while any run waits, new runs queue behind it.
 */
export class OutageBuffer {
  private held: Held[] = [];
  private heldBytes = 0;
  /** Of the current outage, for the line that ends it. */
  private buffered = 0;
  private dropped = 0;
  /** Over the process's life. */
  private droppedTotal = 0;
  private draining: Promise<void> | undefined;

  constructor(
    private readonly maxBytes: number,
    private readonly logger: CollectorLogger,
  ) {}

  /** Whether runs are waiting: new runs must queue behind them. */
  get holding(): boolean {
    return this.held.length > 0;
  }

  /** What is held now, and how many runs were dropped for want of room since the process started. */
  stats(): { runs: number; bytes: number; droppedRuns: number } {
    return { runs: this.held.length, bytes: this.heldBytes, droppedRuns: this.droppedTotal };
  }

  /** Holds a run for later; the first of an outage is logged, and so is the first one dropped. */
  add(run: CollectedRun, cause: string): void {
    const bytes = Buffer.byteLength(JSON.stringify(run.rows ?? []), "utf8") + 200;
    if (this.held.length === 0 && this.buffered === 0) {
      this.logger.warn(
        { cause, maxBytes: this.maxBytes },
        "datastore unavailable: collected runs are kept in memory until it is back",
      );
    }
    this.held.push({ ...run, bytes });
    this.heldBytes += bytes;
    this.buffered += 1;
    let droppedNow = 0;
    while (this.heldBytes > this.maxBytes && this.held.length > 0) {
      const oldest = this.held.shift() as Held;
      this.heldBytes -= oldest.bytes;
      droppedNow += 1;
    }
    if (droppedNow > 0) {
      if (this.dropped === 0) {
        this.logger.warn(
          { maxBytes: this.maxBytes, droppedRuns: droppedNow },
          "outage buffer full: the oldest collected runs are dropped",
        );
      }
      this.dropped += droppedNow;
      this.droppedTotal += droppedNow;
    }
  }

  /**
   * Writes the held runs, oldest first, until none is left or one fails (the datastore is still
   * away: `write` throws and the run stays first in line). One drain at a time.
   */
  drain(write: WriteRun): Promise<void> {
    this.draining ??= this.drainAll(write).finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async drainAll(write: WriteRun): Promise<void> {
    while (this.held.length > 0) {
      const next = this.held[0] as Held;
      await write(next);
      // A run dropped for room while this one was written has left the head already.
      if (this.held[0] === next) {
        this.held.shift();
        this.heldBytes -= next.bytes;
      }
    }
    if (this.buffered > 0) {
      this.logger.info(
        { bufferedRuns: this.buffered, droppedRuns: this.dropped },
        "datastore back: the collected runs kept in memory are stored",
      );
      this.buffered = 0;
      this.dropped = 0;
    }
  }
}
