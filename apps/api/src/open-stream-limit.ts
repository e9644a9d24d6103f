import { TooManyRequests } from "./errors.js";

/** What a refused caller is told to wait: streams end at their client's will, so no better guess exists. */
const RETRY_AFTER_SECONDS = 5;

/**
 * How many streams of one kind each user has open in this process, capped per user and for all
 * users together: a user cannot hold an unbounded number of long-lived responses (and, for chat, of
 * provider requests), nor can many users together (each stream holds memory and a descriptor). The
 * counts live in memory, so the caps apply per process.
 */
export class OpenStreamLimit {
  readonly #open = new Map<number, number>();
  #total = 0;

  constructor(
    /** Streams one user may have open at once. */
    readonly perUser: number,
    /** Streams all users together may have open at once. */
    readonly perProcess: number,
    /** What the streams are, for the refusal: "overview streams", say. */
    private readonly what: string,
  ) {}

  /**
   * Takes one of the user's slots, or refuses with 429 when they are all taken. The returned function
   * gives the slot back; calling it again does nothing, so every way a stream can end may call it.
   */
  open(userId: number): () => void {
    const open = this.#open.get(userId) ?? 0;
    if (open >= this.perUser) {
      throw new TooManyRequests(
        `Too many open ${this.what}: at most ${this.perUser} per user; close one and try again`,
        RETRY_AFTER_SECONDS,
      );
    }
    if (this.#total >= this.perProcess) {
      throw new TooManyRequests(
        `Too many open ${this.what}: at most ${this.perProcess} at once on this server; try again later`,
        RETRY_AFTER_SECONDS,
      );
    }
    this.#open.set(userId, open + 1);
    this.#total += 1;
    let released = false;
    return () => {
      if (released) {
        return;
      }
      released = true;
      this.#total -= 1;
      const left = (this.#open.get(userId) ?? 1) - 1;
      if (left > 0) {
        this.#open.set(userId, left);
      } else {
        this.#open.delete(userId);
      }
    };
  }

  /** The user's open streams. */
  openBy(userId: number): number {
    return this.#open.get(userId) ?? 0;
  }
}
