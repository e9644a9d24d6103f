export { ACTIVITY_SAMPLING_DESCRIPTION, activitySamplingProbe } from "./activity-sampling.js";
export { ChangedRowsMemory } from "./changed-rows.js";
export {
  CONNECTIONS_CHANNEL,
  type CollectorOptions,
  PROBE_CONFIGS_CHANNEL,
  type RunningCollector,
  startCollector,
} from "./collector.js";
export type { Clock, CollectorLogger } from "./logger.js";
export { findProbe, probeDefaults, probeRegistry } from "./probes/registry.js";
export type {
  ColumnType,
  ProbeCollection,
  ProbeColumn,
  ProbeContext,
  ProbeDefinition,
  ProbeRow,
  ProbeScope,
  ProbeSpec,
  VersionedQuery,
} from "./probes/types.js";
export { dropExpiredActivity, dropExpiredPartitions } from "./retention.js";
export { COLLECTOR_APPLICATION_NAME } from "./sessions.js";
export { MAX_SSL_FILE_BYTES, readSslFile, SslFileError } from "./ssl-files.js";
export { ensureMetricsTables, PartitionManager, storeProbeRun, storeServerWideRun } from "./storage.js";
export {
  type ConnectionRow as TargetConnection,
  HostRefusedError,
  type ServerTarget,
  serverTarget,
  type TargetOptions,
} from "./target.js";
