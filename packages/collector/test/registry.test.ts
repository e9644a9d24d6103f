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

  it("has the reference's 36 probes and pg_object_health, with their scopes and default intervals", () => {
    const byScope = (scope: string) => probeRegistry.filter((probe) => probe.scope === scope).length;
    expect([byScope("server"), byScope("database"), byScope("host")]).toEqual([16, 11, 10]);
    const defaults = Object.fromEntries(
      probeRegistry.map((probe) => [
        probe.name,
        [probe.intervalSeconds, probe.retentionDays, probe.snapshot],
      ]),
    );
    expect(defaults).toMatchObject({
      pg_stat_activity: [60, 7, false],
      pg_stat_replication: [30, 7, false],
      pg_stat_io: [900, 7, false],
      pg_settings: [3600, 365, true],
      pg_hba_file_rules: [3600, 365, true],
      pg_ident_file_mappings: [3600, 365, true],
      pg_server_info: [3600, 365, true],
      pg_node_role: [300, 30, false],
      pg_extension: [3600, 30, true],
      spock_exception_log: [60, 7, false],
      pg_object_health: [900, 7, false],
      pg_sys_cpu_memory_by_process: [600, 7, false],
    });
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
