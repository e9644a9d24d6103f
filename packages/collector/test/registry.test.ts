import { describe, expect, it } from "vitest";
import { probeRegistry } from "../src/index.js";
import { queryForVersion } from "../src/probes/types.js";

describe("probe registry", () => {
  it("declares well-formed probes whose tables and partitions can be named", () => {
    const names = probeRegistry.map((probe) => probe.name);
    expect(new Set(names).size).toBe(names.length);
    for (const probe of probeRegistry) {
      // A partition is <name>_YYYYMMDD and must fit PostgreSQL's 63-byte identifiers.
      expect(probe.name).toMatch(/^[a-z][a-z0-9_]{0,53}$/);
      expect(Boolean(probe.collect) || (probe.queries?.length ?? 0) > 0).toBe(true);
      expect(probe.intervalSeconds).toBeGreaterThan(0);
      const columns = probe.columns.map((column) => column.name);
      expect(new Set(columns).size).toBe(columns.length);
      for (const reserved of ["connection_id", "collected_at", "database_name"]) {
        expect(columns).not.toContain(reserved);
      }
    }
  });

  it("has the probes of server information, with the reference's names and defaults", () => {
    expect(
      probeRegistry.map((probe) => [probe.name, probe.scope, probe.intervalSeconds, probe.snapshot]),
    ).toEqual([
      ["pg_server_info", "server", 3600, true],
      ["pg_database", "server", 300, false],
      ["pg_settings", "server", 3600, true],
      ["pg_connectivity", "server", 30, false],
      ["pg_extension", "database", 3600, true],
      ["pg_node_role", "server", 300, false],
      ["pg_sys_os_info", "host", 600, false],
      ["pg_sys_cpu_info", "host", 600, true],
      ["pg_sys_memory_info", "host", 600, false],
      ["pg_sys_disk_info", "host", 600, false],
    ]);
  });

  it("picks the SQL of the newest variant a server version supports", () => {
    const queries = [
      { minVersion: 0, sql: "old" },
      { minVersion: 150000, sql: "15+" },
      { minVersion: 170000, sql: "17+" },
    ];
    expect(queryForVersion(queries, 140011)).toBe("old");
    expect(queryForVersion(queries, 150000)).toBe("15+");
    expect(queryForVersion(queries, 180004)).toBe("17+");
    expect(queryForVersion([{ minVersion: 160000, sql: "16+" }], 150000)).toBeUndefined();
  });
});
