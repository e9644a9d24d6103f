import { pgSysCpuInfo, pgSysDiskInfo, pgSysMemoryInfo, pgSysOsInfo } from "./host.js";
import { pgNodeRole } from "./node-role.js";
import { pgConnectivity, pgDatabase, pgExtension, pgServerInfo, pgSettings } from "./postgres.js";
import type { ProbeDefinition } from "./types.js";

/** Every probe the collector runs; each one's table is `metrics.<name>`. */
export const probeRegistry: readonly ProbeDefinition[] = [
  pgServerInfo,
  pgDatabase,
  pgSettings,
  pgConnectivity,
  pgExtension,
  pgNodeRole,
  pgSysOsInfo,
  pgSysCpuInfo,
  pgSysMemoryInfo,
  pgSysDiskInfo,
];
