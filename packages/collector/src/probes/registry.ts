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
import { pgConnectivity, pgDatabase, pgExtension, pgServerInfo, pgSettings } from "./postgres.js";
import {
  pgHbaFileRules,
  pgIdentFileMappings,
  pgNodeRole,
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
import type { ProbeDefinition } from "./types.js";

/** Every probe the collector runs (the catalogue: 16 server-wide, 10 per database, 10 host). */
export const probeRegistry: readonly ProbeDefinition[] = [
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

/** A probe of the catalogue by name. */
export function findProbe(name: string): ProbeDefinition | undefined {
  return probeRegistry.find((probe) => probe.name === name);
}
