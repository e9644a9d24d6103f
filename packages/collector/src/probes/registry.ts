import type { ProbeDefaults } from "@dbmon/datastore";
import { findProbeSpec, probeCatalogue } from "@dbmon/monitoring";
import {
  pgStatAllIndexes,
  pgStatAllTables,
  pgStatDatabase,
  pgStatDatabaseConflicts,
  pgStatioAllSequences,
  pgStatStatements,
  pgStatUserFunctions,
  spockExceptionLog,
  spockResolutions,
} from "./database-stats.js";
import {
  pgSysCpuInfo,
  pgSysCpuMemoryByProcess,
  pgSysCpuUsageInfo,
  pgSysDiskInfo,
  pgSysIoAnalysisInfo,
  pgSysLoadAvgInfo,
  pgSysMemoryInfo,
  pgSysNetworkInfo,
  pgSysOsInfo,
  pgSysProcessInfo,
} from "./host.js";
import { pgNodeRole } from "./node-role.js";
import { pgObjectHealth } from "./object-health.js";
import { pgConnectivity, pgDatabase, pgExtension, pgServerInfo, pgSettings } from "./postgres.js";
import {
  pgHbaFileRules,
  pgIdentFileMappings,
  pgReplicationSlots,
  pgStatActivity,
  pgStatCheckpointer,
  pgStatConnectionSecurity,
  pgStatIo,
  pgStatRecoveryPrefetch,
  pgStatReplication,
  pgStatSubscription,
  pgStatWal,
} from "./server-stats.js";
import type { ProbeCollection, ProbeDefinition } from "./types.js";

const collections: readonly ProbeCollection[] = [
  pgStatActivity,
  pgStatReplication,
  pgReplicationSlots,
  pgStatRecoveryPrefetch,
  pgStatSubscription,
  pgStatConnectionSecurity,
  pgStatIo,
  pgStatCheckpointer,
  pgStatWal,
  pgSettings,
  pgHbaFileRules,
  pgIdentFileMappings,
  pgServerInfo,
  pgNodeRole,
  pgConnectivity,
  pgDatabase,
  pgStatDatabase,
  pgStatDatabaseConflicts,
  pgStatAllTables,
  pgStatAllIndexes,
  pgStatioAllSequences,
  pgStatUserFunctions,
  pgStatStatements,
  pgExtension,
  spockExceptionLog,
  spockResolutions,
  pgObjectHealth,
  pgSysOsInfo,
  pgSysCpuInfo,
  pgSysCpuUsageInfo,
  pgSysMemoryInfo,
  pgSysIoAnalysisInfo,
  pgSysDiskInfo,
  pgSysLoadAvgInfo,
  pgSysProcessInfo,
  pgSysNetworkInfo,
  pgSysCpuMemoryByProcess,
];

/** Each catalogue probe with its collection; a probe without one (or the reverse) fails at load. */
function attachCollections(): ProbeDefinition[] {
  const byName = new Map(collections.map((collection) => [collection.name, collection]));
  const probes = probeCatalogue.map(({ description: _description, ...spec }) => {
    const collection = byName.get(spec.name);
    if (!collection) {
      throw new Error(`probe ${spec.name} has no collection`);
    }
    byName.delete(spec.name);
    return {
      ...spec,
      queries: collection.queries,
      collect: collection.collect,
    };
  });
  if (byName.size > 0) {
    throw new Error(`collections without a catalogue probe: ${[...byName.keys()].join(", ")}`);
  }
  return probes;
}

/** Every probe the collector runs, in the catalogue's order. */
export const probeRegistry: readonly ProbeDefinition[] = attachCollections();

/** A probe of the registry by name. */
export function findProbe(name: string): ProbeDefinition | undefined {
  return probeRegistry.find((probe) => probe.name === name);
}

/** A probe's global probe configuration as collectors seed it (`seedProbeConfigs`). */
export function probeDefaults(probe: ProbeDefinition): ProbeDefaults {
  return {
    name: probe.name,
    description: findProbeSpec(probe.name)?.description ?? "",
    intervalSeconds: probe.intervalSeconds,
    retentionDays: probe.retentionDays,
    systemCatalogsOptional: probe.systemCatalogsOptional === true,
  };
}
