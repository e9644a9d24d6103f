import { ensureMetricsTables, PartitionManager, probeRegistry } from "@dbmon/collector";
import { findProbeSpec, seedProbeConfigs } from "@dbmon/datastore";
import type { TestApp } from "./support.js";

/**
 * A connection row in the datastore, known to the authorization layer as owned by `owner`
 * (private unless shared). Nothing connects to it.
 */
export async function addConnection(
  t: TestApp,
  name: string,
  options: { owner?: string; shared?: boolean; clusterId?: number } = {},
): Promise<number> {
  const owner = options.owner ?? "admin";
  if (options.clusterId !== undefined) {
    await t.datastore.sql`insert into clusters (id, name) overriding system value
      values (${options.clusterId}, ${`cluster-${options.clusterId}`}) on conflict do nothing`;
  }
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared, is_monitored,
      cluster_id)
    values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', ${owner}, ${options.shared ?? false}, false,
      ${options.clusterId ?? null})
    returning id`;
  if (!row) {
    throw new Error("insert returned nothing");
  }
  return row.id;
}

/** The global probe defaults, as a collector seeds them at start. */
export async function seedProbeDefaults(t: TestApp): Promise<void> {
  await seedProbeConfigs(
    t.datastore.sql,
    probeRegistry.map((probe) => ({
      name: probe.name,
      description: findProbeSpec(probe.name)?.description ?? "",
      intervalSeconds: probe.intervalSeconds,
      retentionDays: probe.retentionDays,
    })),
  );
}

/** The metrics tables of every probe, with partitions for the weeks around `at`. */
export async function prepareMetrics(t: TestApp, at: Date): Promise<void> {
  await ensureMetricsTables(t.datastore.sql, probeRegistry);
  const partitions = new PartitionManager(t.datastore.sql, probeRegistry);
  for (const weeksAgo of [0, 1, 2, 3, 4, 5]) {
    await partitions.ensureAround(new Date(at.getTime() - weeksAgo * 7 * 24 * 3600 * 1000));
  }
}

/** Inserts rows into `metrics.<probe>` (columns named by the rows' keys). */
export async function insertMetrics(
  t: TestApp,
  probe: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  const columns = Object.keys(rows[0] ?? {}).join(", ");
  for (let offset = 0; offset < rows.length; offset += 5000) {
    await t.datastore.sql.unsafe(
      `insert into metrics.${probe} (${columns})
       select ${columns} from json_populate_recordset(null::metrics.${probe}, $1::json)`,
      [JSON.stringify(rows.slice(offset, offset + 5000))],
    );
  }
}
