export {
  CONNECTIONS_CHANNEL,
  type CollectorOptions,
  type RunningCollector,
  startCollector,
} from "./collector.js";
export type { Clock, CollectorLogger } from "./logger.js";
export { probeRegistry } from "./probes/registry.js";
export type {
  ColumnType,
  ProbeColumn,
  ProbeContext,
  ProbeDefinition,
  ProbeRow,
  ProbeScope,
  VersionedQuery,
} from "./probes/types.js";
export { COLLECTOR_APPLICATION_NAME } from "./sessions.js";
export { type ConnectionRow as TargetConnection, type ServerTarget, serverTarget } from "./target.js";
