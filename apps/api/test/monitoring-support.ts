import {
  ensureMetricsTables,
  PartitionManager,
  probeDefaults,
  probeRegistry,
  startCollector,
} from "@dbmon/collector";
import { readServerInfo, seedProbeConfigs } from "@dbmon/datastore";
import { presentServerInfo, type ServerInfoDocument } from "../src/server-info/present.js";
import type { TestApp } from "./support.js";

let serverCount = 0;

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
  // A server of its own (an address of its own): connections at one address share their server's
  // rows (dbmon_server_connection), which tests giving each connection data of its own must avoid.
  serverCount += 1;
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared, is_monitored,
      cluster_id)
    values (${name}, ${`server-${serverCount}.test`}, 5432, 'postgres', 'postgres', ${owner}, ${options.shared ?? false}, false,
      ${options.clusterId ?? null})
    returning id`;
  if (!row) {
    throw new Error("insert returned nothing");
  }
  return row.id;
}

/** The global probe defaults, as a collector seeds them at start. */
export async function seedProbeDefaults(t: TestApp): Promise<void> {
  await seedProbeConfigs(t.datastore.sql, probeRegistry.map(probeDefaults));
}

/** The metrics tables of every probe, with partitions for the weeks around `at`. */
export async function prepareMetrics(t: TestApp, at: Date): Promise<void> {
  await ensureMetricsTables(t.datastore.sql, probeRegistry);
  const partitions = new PartitionManager(t.datastore.sql, probeRegistry);
  for (const weeksAgo of [0, 1, 2, 3, 4, 5]) {
    await partitions.ensureAround(new Date(at.getTime() - weeksAgo * 7 * 24 * 3600 * 1000));
  }
}

/** The metrics tables of the named probes only, with partitions for the week around `at`. */
export async function prepareMetricsOf(t: TestApp, probes: readonly string[], at: Date): Promise<void> {
  const chosen = probeRegistry.filter((probe) => probes.includes(probe.name));
  await ensureMetricsTables(t.datastore.sql, chosen);
  await new PartitionManager(t.datastore.sql, chosen).ensureAround(at);
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

/** Registers the test server itself as a monitored connection. */
export async function monitorTestServer(t: TestApp, owner: string): Promise<number> {
  const url = new URL(t.database.url);
  const row = await t.services.connections.create(
    {
      name: "under-test",
      host: url.hostname,
      port: Number(url.port),
      databaseName: t.database.name,
      username: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password) || "unused-with-trust-auth",
      sslMode: "disable",
    },
    owner,
  );
  return row.id;
}

/** Runs the collector until the connection's server information has `ready` data, then stops it. */
export async function collectUntil(
  t: TestApp,
  id: number,
  ready: (info: ServerInfoDocument) => boolean | Promise<boolean>,
): Promise<void> {
  const collector = await startCollector({
    datastore: t.datastore,
    logger: t.services.logger,
    secretKey: t.services.secretKey,
    leaseSeconds: 6,
  });
  try {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const info = await readServerInfo(t.datastore, id);
      if (info && (await ready(presentServerInfo(info)))) {
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`no collection within 45 s: ${JSON.stringify(info)}`);
      }
      await new Promise((done) => setTimeout(done, 500));
    }
  } finally {
    await collector.stop();
  }
}
