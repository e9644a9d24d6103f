import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ProbeDefinition, type RunningCollector, startCollector } from "../src/index.js";
import { ensureMetricsTables, PartitionManager, storeProbeRun } from "../src/storage.js";
import {
  insertConnection,
  openTestEnvironment,
  quietLogger,
  type TestEnvironment,
  waitFor,
} from "./support.js";

/** A probe whose registry retention is a week; nothing here runs it, rows are stored by hand. */
function weekly(name: string): ProbeDefinition {
  return {
    name,
    scope: "server",
    intervalSeconds: 60,
    retentionDays: 7,
    snapshot: false,
    columns: [{ name: "value", type: "integer" }],
    queries: [{ minVersion: 0, sql: "select 1 as value" }],
  };
}

// A Wednesday: its week's partition starts Monday 2026-11-23, the next one 2026-11-30.
const NOW = new Date("2026-11-25T12:00:00Z");
const at = (iso: string) => new Date(`${iso}Z`);

describe("metrics retention", () => {
  let env: TestEnvironment;
  let collector: RunningCollector;
  let connectionId: number;
  // Kept a week, as its registry entry says.
  const registryRetention = weekly("kept_by_registry");
  // Kept 30 days by its probe configuration, though its registry entry says a week.
  const configuredRetention = weekly("kept_by_config");
  const probes = [configuredRetention, registryRetention];

  beforeAll(async () => {
    env = await openTestEnvironment();
    const { sql } = env.datastore;
    // Not monitored: the collector only keeps its tables, no probe runs write into them.
    connectionId = await insertConnection(env, { database_name: "postgres", is_monitored: false });
    await sql`
      insert into probe_configs (name, collection_interval_seconds, retention_days, scope, scope_id, user_modified)
      values (${configuredRetention.name}, 60, 30, 'global', 0, true)`;
    await ensureMetricsTables(sql, probes);
    const partitions = new PartitionManager(sql, probes);
    const store = async (probe: ProbeDefinition, collectedAt: Date, value: number) => {
      await partitions.ensureFor(probe, collectedAt);
      await storeProbeRun(sql, quietLogger, probe, connectionId, collectedAt, [{ value }]);
    };
    // Either side of the probe's cutoff (2026-11-18T12:00): the week of 11-09 lies wholly before
    // it, the week of 11-16 straddles it.
    await store(registryRetention, at("2026-11-10T08:00:00"), 1);
    await store(registryRetention, at("2026-11-17T08:00:00"), 2);
    await store(registryRetention, at("2026-11-20T08:00:00"), 3);
    await store(registryRetention, at("2026-11-24T08:00:00"), 4);
    // Cutoff 2026-10-26T12:00: the week of 10-19 lies wholly before it, that of 10-26 straddles it,
    // and the week of 11-09 would be gone with the registry's seven days.
    await store(configuredRetention, at("2026-10-20T08:00:00"), 1);
    await store(configuredRetention, at("2026-10-26T08:00:00"), 2);
    await store(configuredRetention, at("2026-10-28T08:00:00"), 3);
    await store(configuredRetention, at("2026-11-10T08:00:00"), 4);

    collector = await startCollector({
      datastore: env.datastore,
      logger: quietLogger,
      secretKey: env.secretKey,
      clock: { now: () => NOW },
      probes,
      topologySeconds: 0,
      rollupSeconds: 0,
      retentionCheckSeconds: 1,
    });
  });

  afterAll(async () => {
    await collector?.stop();
    await env?.close();
  });

  async function partitionsOf(probe: ProbeDefinition): Promise<string[]> {
    const rows = await env.datastore.sql<{ name: string }[]>`
      select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = ${`metrics.${probe.name}`}::regclass order by c.relname`;
    return rows.map((row) => row.name);
  }

  async function valuesOf(probe: ProbeDefinition): Promise<number[]> {
    const rows = await env.datastore.sql.unsafe<{ value: number }[]>(
      `select value from metrics.${probe.name} order by collected_at`,
    );
    return rows.map((row) => row.value);
  }

  it("creates the partitions of the current and the next week when it starts", async () => {
    for (const probe of probes) {
      expect(await partitionsOf(probe)).toEqual(
        expect.arrayContaining([`${probe.name}_20261123`, `${probe.name}_20261130`]),
      );
    }
  });

  it("drops whole expired weeks, by the probe configuration's retention when it gives one", async () => {
    // Probes are expired in order, so the registry's probe done means the configured one is too.
    await waitFor("the expired week of the registry's probe to be dropped", async () =>
      (await partitionsOf(registryRetention)).includes("kept_by_registry_20261109") ? undefined : true,
    );
    expect(await partitionsOf(registryRetention)).toEqual([
      "kept_by_registry_20261116",
      "kept_by_registry_20261123",
      "kept_by_registry_20261130",
    ]);
    expect(await partitionsOf(configuredRetention)).toEqual([
      "kept_by_config_20261026",
      "kept_by_config_20261109",
      "kept_by_config_20261123",
      "kept_by_config_20261130",
    ]);
    // Rows older than the cutoff in a week that straddles it stay: weeks go whole, rows never one by one.
    expect(await valuesOf(registryRetention)).toEqual([2, 3, 4]);
    expect(await valuesOf(configuredRetention)).toEqual([2, 3, 4]);
    const deleted = await env.datastore.sql<{ relname: string; n_tup_del: number }[]>`
      select relname::text, n_tup_del::int from pg_stat_user_tables
      where schemaname = 'metrics' and n_tup_del > 0`;
    expect(deleted).toEqual([]);
  });
});
