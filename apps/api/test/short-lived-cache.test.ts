import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ShortLivedCache } from "../src/short-lived-cache.js";

describe("ShortLivedCache", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("loads once for requests that arrive together, and again after the time to live", async () => {
    const cache = new ShortLivedCache<string, number>(1_000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await Promise.all([cache.get("a", load), cache.get("a", load), cache.get("a", load)])).toEqual([
      1, 1, 1,
    ]);
    vi.advanceTimersByTime(999);
    expect(await cache.get("a", load)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await cache.get("a", load)).toBe(2);
    expect(loads).toBe(2);
  });

  it("forgets loads under way when cleared, so a read from before a change is never served after it", async () => {
    const cache = new ShortLivedCache<string, string>(60_000);
    let release: (value: string) => void = () => {};
    const stale = cache.get("a", () => new Promise<string>((resolve) => (release = resolve)));
    cache.clear();
    const fresh = cache.get("a", async () => "after the change");
    release("before the change");
    expect(await stale).toBe("before the change");
    expect(await fresh).toBe("after the change");
    expect(await cache.get("a", async () => "unused")).toBe("after the change");
  });

  it("keeps neither failed loads nor values `keep` refuses", async () => {
    const cache = new ShortLivedCache<string, number | undefined>(60_000);
    await expect(cache.get("a", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("a", async () => 1)).toBe(1);
    await cache.get(
      "b",
      async () => undefined,
      (value) => value !== undefined,
    );
    expect(cache.size).toBe(1);
    expect(await cache.get("b", async () => 2)).toBe(2);
  });

  it("holds at most its maximum, giving up the oldest entry first", async () => {
    const cache = new ShortLivedCache<number, number>(60_000, 3);
    for (const key of [1, 2, 3, 4]) {
      await cache.get(key, async () => key * 10);
    }
    expect(cache.size).toBe(3);
    expect(await cache.get(1, async () => -1)).toBe(-1);
    expect(await cache.get(4, async () => -1)).toBe(40);
  });

  it("drops single entries", async () => {
    const cache = new ShortLivedCache<string, number>(60_000);
    await cache.get("a", async () => 1);
    cache.delete("a");
    expect(await cache.get("a", async () => 2)).toBe(2);
  });
});
