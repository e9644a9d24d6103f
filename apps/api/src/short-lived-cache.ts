/**
 * Values kept in memory for a short time and loaded once however many requests ask at the same
 * moment (the pending load is what is stored). `clear` and `delete` also forget loads under way, so
 * a value read before a change is never served to a request that starts after it. Failed loads are
 * not kept. Ages are measured on the monotonic clock: an injected wall clock cannot freeze them.
 */
export class ShortLivedCache<K, V> {
  private readonly entries = new Map<K, { value: Promise<V>; expiresAt: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The cached value of `key`, else what `load` gives; `keep` may refuse to cache a result. */
  get(key: K, load: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    const now = performance.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > now) {
      return cached.value;
    }
    if (cached) {
      this.entries.delete(key);
    } else if (this.entries.size >= this.maxEntries) {
      // Insertion order: the first key is the oldest entry.
      this.entries.delete(this.entries.keys().next().value as K);
    }
    const entry = { value: load(), expiresAt: now + this.ttlMs };
    this.entries.set(key, entry);
    entry.value.then(
      (value) => {
        if (!keep(value)) {
          this.forget(key, entry);
        }
      },
      () => this.forget(key, entry),
    );
    return entry.value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  private forget(key: K, entry: { value: Promise<V> }): void {
    if (this.entries.get(key) === entry) {
      this.entries.delete(key);
    }
  }
}
