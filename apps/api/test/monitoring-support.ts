import { probeDescriptions, probeRegistry } from "@dbmon/collector";
import { seedProbeConfigs } from "@dbmon/datastore";
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
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared, is_monitored,
      cluster_id)
    values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', ${owner}, ${options.shared ?? false}, false,
      ${options.clusterId ?? null})
    returning id`;
  if (!row) {
    throw new Error("insert returned nothing");
  }
  t.connections.push({ id: row.id, ownerUsername: owner, isShared: options.shared ?? false });
  return row.id;
}

/** The global probe defaults, as a collector seeds them at start. */
export async function seedProbeDefaults(t: TestApp): Promise<void> {
  await seedProbeConfigs(
    t.datastore.sql,
    probeRegistry.map((probe) => ({
      name: probe.name,
      description: probeDescriptions[probe.name] ?? "",
      intervalSeconds: probe.intervalSeconds,
      retentionDays: probe.retentionDays,
    })),
  );
}
