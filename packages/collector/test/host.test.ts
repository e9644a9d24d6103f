import { describe, expect, it } from "vitest";
import type { ProbeContext } from "../src/index.js";
import { megahertzIn, pgSysDiskInfo, pgSysOsInfo } from "../src/probes/host.js";
import { isLoopbackAddress } from "../src/target.js";

const noQueries: ProbeContext["query"] = () => {
  throw new Error("no query expected");
};

describe("host probes", () => {
  it("collect nothing for a remote server without system_stats (D6)", async () => {
    const context: ProbeContext = {
      query: noQueries,
      serverVersionNum: 150000,
      systemStatsSchema: null,
      isLocalHost: false,
      includeSystemCatalogs: true,
      absent: () => {},
    };
    expect(await pgSysOsInfo.collect?.(context)).toBeNull();
    expect(await pgSysDiskInfo.collect?.(context)).toBeNull();
  });

  it("read clock speeds from /proc/cpuinfo and lscpu output", () => {
    const cpuinfo = "processor\t: 0\ncpu MHz\t\t: 2596.146\nprocessor\t: 1\ncpu MHz\t\t: 2800.5\n";
    expect(megahertzIn(cpuinfo, /^cpu MHz$/i)).toBe(2800.5);
    const lscpu = "Architecture:  x86_64\nCPU MHz:       2100.000\nCPU max MHz:   3500.0000\n";
    expect(megahertzIn(lscpu, /^CPU max MHz$/i)).toBe(3500);
    expect(megahertzIn(lscpu, /^CPU MHz$/i)).toBe(2100);
    expect(megahertzIn("cpu MHz : 0\n", /^cpu MHz$/i)).toBeNull();
  });

  it("tell this host's addresses from others", () => {
    for (const local of [
      "127.0.0.1",
      "127.1.2.3",
      "localhost",
      "LOCALHOST.",
      "::1",
      "[::1]",
      "/var/run/postgresql",
      "",
    ]) {
      expect(isLoopbackAddress(local)).toBe(true);
    }
    for (const remote of ["10.0.0.5", "db.example.com", "128.0.0.1", "::2", "localhost.example.com"]) {
      expect(isLoopbackAddress(remote)).toBe(false);
    }
  });
});
