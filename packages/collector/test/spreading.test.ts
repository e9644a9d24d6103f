import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { firstRunOffsetMs } from "../src/probe-timers.js";
import { sharedReading } from "../src/probes/host.js";

describe("first runs spread over a window", () => {
  it("places a connection's probes evenly apart inside the window", () => {
    const offsets = Array.from({ length: 36 }, (_, probe) => firstRunOffsetMs(probe, 36, 7, 30_000));
    for (const offset of offsets) {
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(30_000);
    }
    const sorted = [...offsets].sort((a, b) => a - b);
    const gaps = sorted.slice(1).map((offset, index) => offset - (sorted[index] as number));
    for (const gap of gaps) {
      // 30 s / 36 probes, give or take the rounding to whole milliseconds.
      expect(Math.abs(gap - 30_000 / 36)).toBeLessThanOrEqual(1);
    }
  });

  it("shifts each connection's pattern, so neighbouring connections do not start together", () => {
    const firsts = Array.from({ length: 100 }, (_, id) => firstRunOffsetMs(0, 36, id + 1, 30_000));
    const sorted = [...firsts].sort((a, b) => a - b);
    // 100 connections in 30 s: no more than a handful share any one second.
    for (let second = 0; second < 30; second++) {
      expect(sorted.filter((offset) => Math.floor(offset / 1000) === second).length).toBeLessThanOrEqual(6);
    }
  });

  it("starts at once when the window is empty (one connection, or sub-second intervals)", () => {
    expect(firstRunOffsetMs(12, 36, 3, 0)).toBe(0);
  });
});

describe("readings of the collector's own host", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are taken once for every connection on the host within the reuse period", async () => {
    let readings = 0;
    const read = sharedReading(async () => [{ reading: ++readings }]);
    const rows = await Promise.all(Array.from({ length: 100 }, () => read()));
    expect(readings).toBe(1);
    expect(new Set(rows.map((row) => row[0]?.reading))).toEqual(new Set([1]));
    vi.advanceTimersByTime(4_999);
    expect((await read())[0]?.reading).toBe(1);
    vi.advanceTimersByTime(1);
    expect((await read())[0]?.reading).toBe(2);
  });

  it("are taken again at once after a failed reading", async () => {
    let attempts = 0;
    const read = sharedReading(async () => {
      attempts += 1;
      if (attempts === 1) {
        throw new Error("proc unreadable");
      }
      return [{ attempts }];
    });
    await expect(read()).rejects.toThrow("proc unreadable");
    expect((await read())[0]?.attempts).toBe(2);
  });
});
