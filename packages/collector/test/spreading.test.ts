import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { firstRunOffsetMs, ProbeTimers } from "../src/probe-timers.js";
import { sharedReading } from "../src/probes/host.js";
import type { ProbeDefinition } from "../src/probes/types.js";

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

describe("a probe's rhythm", () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const probe = (name: string, intervalSeconds: number) =>
    ({
      name,
      intervalSeconds,
      scope: "database",
      retentionDays: 1,
      snapshot: false,
      columns: [],
    }) as ProbeDefinition;

  it("keeps each run on its phase, however late timers fire and however long runs take", async () => {
    const fast = probe("fast", 60);
    const slow = probe("slow", 300);
    const starts = new Map<string, number[]>([
      ["fast", []],
      ["slow", []],
    ]);
    const timers = new ProbeTimers({
      probes: [fast, slow],
      schedule: (which) => ({ enabled: true, intervalSeconds: which.intervalSeconds }),
      firstRunDelayMs: () => 7_000,
      run: async (which) => {
        starts.get(which.name)?.push(Date.now() - 1_000_000);
        // A run that takes a while.
        await new Promise((done) => setTimeout(done, 1_234));
      },
    });
    timers.start(new Map(), Date.now());
    for (let step = 0; step < 3_000; step += 1) {
      // The clock moves 3 ms a second more than the timers do, so every timer fires late by what
      // it moved while it waited: drift would add that up run after run.
      vi.setSystemTime(Date.now() + 3);
      await vi.advanceTimersByTimeAsync(1_000);
    }
    // A run may be in progress: its end comes with the timers.
    const stopped = timers.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await stopped;
    for (const which of [fast, slow]) {
      const late = (starts.get(which.name) ?? []).map(
        (at, index) => at - (7_000 + index * which.intervalSeconds * 1000),
      );
      expect(late.length).toBeGreaterThan(which === fast ? 40 : 8);
      // Each run is as late as a wait makes it (the clock's lead over the timers during one
      // interval), never later as runs go by: the 50th of the 60 s probe would otherwise be a
      // second late, and the two probes would no longer meet on one session.
      for (const lateness of late.slice(2)) {
        expect(Math.abs(lateness - (late[1] ?? 0))).toBeLessThanOrEqual(5);
      }
    }
  });
  it("starts a new phase after a run later than a fifth of its interval, instead of catching up", async () => {
    const starts: number[] = [];
    const timers = new ProbeTimers({
      probes: [probe("slow run", 60)],
      schedule: () => ({ enabled: true, intervalSeconds: 60 }),
      firstRunDelayMs: () => 7_000,
      run: async () => {
        starts.push(Date.now() - 1_000_000);
        // The first run takes 75 s: the second is due at 67 s and can only start at 82 s.
        await new Promise((done) => setTimeout(done, starts.length === 1 ? 75_000 : 1_000));
      },
    });
    timers.start(new Map(), Date.now());
    await vi.advanceTimersByTimeAsync(300_000);
    const stopped = timers.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    await stopped;
    // 15 s late (more than 12 s): the third a full interval after the second, not 45 s after it.
    const [first = 0, second = 0, third = 0, fourth = 0] = starts;
    expect(first).toBe(7_000);
    expect(second - 82_000).toBeLessThan(5);
    expect([third - second, fourth - third]).toEqual([60_000, 60_000]);
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
