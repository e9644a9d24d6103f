export {
  evaluateHealthChecks,
  findHealthCheck,
  HEALTH_CHECK_PROBES,
  HEALTH_CHECKS,
  type HealthCheckDefinition,
  type HealthCheckFailure,
  type HealthCheckResult,
  type HealthFinding,
  type HealthStatus,
  MAX_FINDINGS,
  recordHealthChecks,
  statusOf,
} from "./health-checks.js";
export {
  createHostPolicy,
  createOutboundHostPolicy,
  type HostPolicy,
  isAllowedPort,
  isValidHostEntry,
  parseHostList,
  type Resolver,
} from "./host-policy.js";
export { monitoredServerSession } from "./monitored-server-driver.js";
export { ReceiveBudget } from "./monitored-server-socket.js";
export {
  type ColumnType,
  type DescribedProbeSpec,
  FOOTPRINT_REFRESH_SECONDS,
  findProbeSpec,
  metricColumns,
  numericValue,
  type ProbeColumn,
  type ProbeScope,
  type ProbeSpec,
  probeCatalogue,
  probeRunsTable,
  rowSources,
  sourceRowCondition,
  storedOncePerServer,
} from "./probe-catalogue/index.js";
export {
  ROLLUP_SETTLING_SECONDS,
  type RollupCoverage,
  type RollupPass,
  type RollupTable,
  rolledUp,
  rollUpMetrics,
  rollupCoverage,
  rollupDatabaseColumn,
  rollupTables,
} from "./rollups/index.js";
export {
  type DetectedCluster,
  type DetectedRelationship,
  type DetectionNode,
  detectClusters,
  type RefreshResult,
  type RelationshipType,
  readDetectionNodes,
  refreshClusterTopology,
  spockPrefix,
} from "./topology/detect.js";
