/**
 * Every PostgreSQL advisory lock dbmon takes, in one place so that no two purposes share a key (two
 * that did would serialize unrelated work across processes, or let one stand in for the other).
 * The values are arbitrary but fixed: processes of different versions must agree on them.
 */
export const advisoryLocks = {
  /** Held while migrations run, so that several processes can start at once. */
  migration: 7_239_184_561,
  /** Transaction lock around the collector's DDL on the metrics schema (tables, partitions). */
  metricsDdl: 7_239_184_562,
  /** One anomaly-baseline recalculation at a time over all alerters. */
  baselineRecalculation: 7_239_184_563,
  /** Transaction lock around group membership changes (cycle checks see committed memberships). */
  groupMembership: 7_239_184_564,
  /** One metrics rollup pass at a time over all collectors. */
  metricRollups: 7_239_184_565,
  // 7_239_184_566 and the two-key 72_391_845 were the overview generation locks of versions before
  // overview_generation_leases: not to be reused.
  /** Transaction lock around rebuilding the knowledge base index, one API process at a time. */
  knowledgeBaseIndex: 7_239_184_567,
  /** Transaction lock around the alerter's update of `autovacuum_crossings`. */
  autovacuumCrossings: 7_239_184_568,
  /** Transaction lock around recording the health checks' results, one alerter at a time. */
  healthChecks: 7_239_184_569,
  /**
   * Taken by the trigger that moves a server's rows to its new representative (migration 0029), and
   * shared by the collector's stores of server-wide runs, which then see the representative in force.
   */
  serverRows: 7_239_184_570,
  /** One cluster topology refresh at a time over all collectors ("dbmn"). */
  topologyRefresh: 0x64626d6e,
} as const;
