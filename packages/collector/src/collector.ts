import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  type Datastore,
  type EffectiveProbeConfig,
  effectiveProbeConfigs,
  isDatastoreUnavailable,
  readServerDirectory,
  type SecretKey,
  seedProbeConfigs,
} from "@dbmon/datastore";
import { type HostPolicy, refreshClusterTopology, rollUpMetrics, rollupTables } from "@dbmon/monitoring";
import { ACTIVITY_SAMPLING_DESCRIPTION, activitySamplingProbe } from "./activity-sampling.js";
import { ActivityStore } from "./activity-store.js";
import { ChangedRowsMemory } from "./changed-rows.js";
import { cycleLeases, releaseLeases } from "./leases.js";
import { type Clock, type CollectorLogger, systemClock } from "./logger.js";
import { ConnectionMonitor, type MonitorDeps } from "./monitor.js";
import { OutageBuffer } from "./outage-buffer.js";
import { firstRunOffsetMs } from "./probe-timers.js";
import { probeDefaults, probeRegistry } from "./probes/registry.js";
import type { ProbeDefinition } from "./probes/types.js";
import { dropExpiredActivity, dropExpiredPartitions } from "./retention.js";
import { ServerGroup, serverKey } from "./server-group.js";
import { describeError } from "./sessions.js";
import { ensureMetricsTables, lastRunsOf, PartitionManager, writeCollectedRun } from "./storage.js";
import { type ConnectionRow, connectionFingerprint, type ServerTarget, serverTarget } from "./target.js";

/** The API (or the trigger on `connections`) notifies this channel after a connection changes. */
export const CONNECTIONS_CHANNEL = "dbmon_connections";

/** The trigger on `probe_configs` notifies this channel after any change of probe settings. */
export const PROBE_CONFIGS_CHANNEL = "dbmon_probe_configs";

export interface CollectorOptions {
  datastore: Pick<Datastore, "sql" | "url" | "ping" | "listen">;
  logger: CollectorLogger;
  /** Decrypts connection passwords (`loadSecretKey` from @dbmon/datastore). */
  secretKey: SecretKey;
  /** DBMON_SSL_DIR: the only directory connections' certificate and key files are read from. */
  sslDirectory?: string | undefined;
  /** Where monitored servers may be, checked at every connect (DBMON_ALLOWED_HOSTS, DBMON_BLOCKED_HOSTS). */
  hostPolicy?: HostPolicy | undefined;
  clock?: Clock;
  /** Identifies this process in `collector_leases`; unique by default. */
  instanceId?: string;
  /** A lease lasts this long unless renewed (renewed every third of it). Default 30. */
  leaseSeconds?: number;
  /** Connections are re-read at least this often besides notifications. Default leaseSeconds / 3. */
  pollSeconds?: number;
  /** Default 3. */
  maxSessionsPerServer?: number;
  /** Default 10. */
  connectTimeoutSeconds?: number;
  /** Time limit of one probe run, over all its databases; also the statement_timeout. Default 60. */
  runTimeoutSeconds?: number;
  /** A session to a monitored server unused this long is closed. Default 60. */
  idleSessionSeconds?: number;
  /** The most one probe query may receive from a monitored server (bytes). Default 256 MiB. */
  maxResultBytes?: number;
  /**
   * The first runs of a connection's probes are spread over a window, each probe and connection at
   * its own offset, so that a start with many connections is not one burst (its results all in
   * memory at once) and a connection's probes rarely need more than one session at a time. The
   * window grows by 0.3 s per connection this process collects, up to this many seconds (and at
   * most each probe's interval): a thousand connections start over five minutes, the interval of
   * most database probes, so that their first runs are already as spread as their later ones.
   * Default 300.
   */
  maxFirstRunSpreadSeconds?: number;
  /** First retry delay after a connection failure, doubled up to `backoffMaxSeconds`. Default 5. */
  backoffInitialSeconds?: number;
  /** Default 300. */
  backoffMaxSeconds?: number;
  /** Default: every probe of the registry. */
  probes?: readonly ProbeDefinition[];
  /**
   * Collection interval per probe name, replacing the probe configuration's (tests and
   * benchmarks use sub-second intervals, which the configuration cannot express).
   */
  intervalOverrides?: Readonly<Record<string, number>>;
  /**
   * Cluster auto-detection from the collected node roles runs this often (one process at a time over
   * the datastore). Default 30; 0 turns it off.
   */
  topologySeconds?: number;
  /** Expired metrics partitions are dropped this often (the first time a minute after start). Default 3600. */
  retentionCheckSeconds?: number;
  /**
   * Active session history (probe `activity_sampling`, run like a server-wide probe; interval,
   * enabled and aggregate retention from the probe configuration): query text kept per sample, in
   * characters (0 keeps none). Default 1024.
   */
  activityQueryChars?: number;
  /** Raw activity samples are kept at least this long (minutes), then dropped by the hour. Default 60. */
  activityRawRetentionMinutes?: number;
  /**
   * Settled buckets are rolled up (5-minute and hourly rollups, one process at a time over the
   * datastore) this often. Default 60; 0 turns it off.
   */
  rollupSeconds?: number;
  /**
   * While the datastore is unavailable, collected runs are kept in memory up to this many bytes
   * (their rows as JSON), the oldest dropped first, and written once it is back. Default 64 MiB.
   */
  outageBufferBytes?: number;
}

export interface RunningCollector {
  instanceId: string;
  /** Connections this collector currently collects. */
  connectionIds(): number[];
  /** Re-reads leases and connections now (as a notification does). */
  sync(): Promise<void>;
  /** Runs cluster auto-detection now; false when another process was running it. */
  detectTopology(): Promise<boolean>;
  /** Runs kept in memory while the datastore is unavailable, and runs dropped for want of room so far. */
  outageBuffer(): { runs: number; bytes: number; droppedRuns: number };
  /** Stops collecting, releases the leases and stops listening. */
  stop(): Promise<void>;
}

const PARTITION_CHECK_MS = 3600 * 1000;
/** Buffered activity samples are written this often (and closed minutes' counts with them). */
const ACTIVITY_FLUSH_MS = 1000;
/** Raw activity samples expire by the hour: looked at this often, so they outlive their retention by little. */
const ACTIVITY_RETENTION_CHECK_MS = 5 * 60 * 1000;
/** While runs wait in the outage buffer, the datastore is tried this often. */
const OUTAGE_RETRY_MS = 2000;
/** With 100 connections, first runs spread over 30 s: measured to keep the start under 200 MB. */
const FIRST_RUN_SPREAD_PER_CONNECTION_SECONDS = 0.3;

/** Starts collecting every monitored connection this process wins a lease for. */
export async function startCollector(options: CollectorOptions): Promise<RunningCollector> {
  const { sql } = options.datastore;
  const { logger, secretKey } = options;
  const clock = options.clock ?? systemClock;
  const instanceId = options.instanceId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseSeconds = options.leaseSeconds ?? 30;
  const pollMs = (options.pollSeconds ?? leaseSeconds / 3) * 1000;
  const probes = options.probes ?? probeRegistry;
  const overrides = options.intervalOverrides ?? {};

  // Rollup tables are kept like probe tables: created, partitioned by week and expired alike.
  const tables = [...probes, ...rollupTables];
  await ensureMetricsTables(sql, tables);
  await seedProbeConfigs(sql, [
    ...probes.map(probeDefaults),
    {
      name: activitySamplingProbe.name,
      description: ACTIVITY_SAMPLING_DESCRIPTION,
      intervalSeconds: activitySamplingProbe.intervalSeconds,
      retentionDays: activitySamplingProbe.retentionDays,
    },
  ]);
  // Probe settings per connection, reloaded with the connections on every sync.
  let configs = new Map<number, Map<string, EffectiveProbeConfig>>();
  const partitions = new PartitionManager(sql, tables);
  await partitions.ensureAround(clock.now());
  const activityStore = new ActivityStore({ sql, logger, leaseHolder: instanceId, now: () => clock.now() });
  await activityStore.ensurePartitions(clock.now());

  const outageBuffer = new OutageBuffer(options.outageBufferBytes ?? 64 * 1024 * 1024, logger);
  const changedRows = new ChangedRowsMemory();
  const groups = new Map<string, ServerGroup>();
  const monitors = new Map<number, { monitor: ConnectionMonitor; group: ServerGroup; key: string }>();
  let firstRunSpreadSeconds = 0;
  const deps: MonitorDeps = {
    sql,
    leaseHolder: instanceId,
    logger,
    clock,
    partitions,
    changedRows,
    directory: new Map(),
    activity: { store: activityStore, queryChars: options.activityQueryChars ?? 1024 },
    outage: {
      buffer: outageBuffer,
      unavailable: (error) => isDatastoreUnavailable(error, options.datastore),
    },
    settings: {
      probes: [...probes, activitySamplingProbe],
      schedule(connectionId, probe) {
        const config = configs.get(connectionId)?.get(probe.name);
        return {
          enabled: config?.enabled ?? true,
          intervalSeconds: overrides[probe.name] ?? config?.intervalSeconds ?? probe.intervalSeconds,
        };
      },
      includeSystemCatalogs(connectionId, probe) {
        return configs.get(connectionId)?.get(probe.name)?.includeSystemCatalogs ?? true;
      },
      firstRunDelayMs(slot, slots, schedule, phaseId) {
        // Folded into the interval rather than spread over a window as short as it, so that a
        // probe runs more often than the window keeps meeting the slower ones of its slot (a
        // connection's 60 s probes meet its 300 s ones every fifth run, on one session).
        const offsetMs = firstRunOffsetMs(slot, slots, phaseId, firstRunSpreadSeconds * 1000);
        const intervalMs = schedule.intervalSeconds * 1000;
        return intervalMs > 0 ? offsetMs % intervalMs : 0;
      },
      maxSessionsPerServer: options.maxSessionsPerServer ?? 3,
      connectTimeoutSeconds: options.connectTimeoutSeconds ?? 10,
      runTimeoutSeconds: options.runTimeoutSeconds ?? 60,
      idleSessionSeconds: options.idleSessionSeconds ?? 60,
      maxResultBytes: options.maxResultBytes ?? 256 * 1024 * 1024,
      backoffInitialSeconds: options.backoffInitialSeconds ?? 5,
      backoffMaxSeconds: options.backoffMaxSeconds ?? 300,
    },
  };
  let stopped = false;
  let pollTimer: NodeJS.Timeout | undefined;
  let takeoverTimer: NodeJS.Timeout | undefined;

  async function removeMonitor(id: number): Promise<void> {
    const entry = monitors.get(id);
    monitors.delete(id);
    changedRows.forgetConnection(id);
    if (!entry) {
      return;
    }
    await entry.group.remove(id);
    if (entry.group.size === 0) {
      groups.delete(entry.key);
      await entry.group.stop();
    }
  }

  async function reconcile(): Promise<void> {
    const leases = await cycleLeases(sql, instanceId, leaseSeconds, CONNECTIONS_CHANNEL);
    const rows = await sql<ConnectionRow[]>`
      select id, name, host, hostaddr, port, database_name, username, password_encrypted, sslmode, sslcert,
        sslkey, sslrootcert, is_local, connection_error
      from connections where id = any(${leases.owned}::int[]) and is_monitored`;
    const wanted = new Map(rows.map((row) => [row.id, row]));
    deps.directory = await readServerDirectory(sql);
    firstRunSpreadSeconds = Math.min(
      options.maxFirstRunSpreadSeconds ?? 300,
      FIRST_RUN_SPREAD_PER_CONNECTION_SECONDS * wanted.size,
    );
    configs = await effectiveProbeConfigs(sql, [...wanted.keys()]);
    const stopping: Promise<void>[] = [];
    for (const [id, { monitor }] of monitors) {
      const row = wanted.get(id);
      if (!row || connectionFingerprint(row) !== monitor.fingerprint) {
        stopping.push(removeMonitor(id));
        logger.info({ connectionId: id }, row ? "connection changed: reconnecting" : "connection released");
      }
    }
    await Promise.all(stopping);
    for (const group of groups.values()) {
      group.applySchedules();
    }
    const added = [...wanted.values()].filter((row) => !monitors.has(row.id));
    if (stopped || added.length === 0) {
      scheduleTakeover(leases.nextForeignExpiry);
      return;
    }
    const lastRuns = await lastRunsOf(
      sql,
      added.map((row) => row.id),
    );
    const created = new Set<ServerGroup>();
    for (const row of added) {
      let target: ServerTarget;
      try {
        target = await serverTarget(row, {
          key: secretKey,
          sslDirectory: options.sslDirectory,
          hostPolicy: options.hostPolicy,
        });
      } catch (error) {
        // A password encrypted under another key, or a missing TLS file: nothing to connect with.
        await recordUnusable(row, `connection error: ${describeError(error)}`);
        continue;
      }
      const key = serverKey(row, target);
      let group = groups.get(key);
      if (!group) {
        group = new ServerGroup(target, deps);
        groups.set(key, group);
        created.add(group);
      }
      const monitor = new ConnectionMonitor(row, connectionFingerprint(row), group, deps);
      const runs = lastRuns.get(row.id) ?? new Map<string, number>();
      group.add(monitor, runs);
      monitors.set(row.id, { monitor, group, key });
      monitor.start(runs);
      // Not `name`: that key is the logger's own ("dbmon"), so a JSON line would carry it twice.
      logger.info({ connectionId: row.id, connection: row.name }, "collecting connection");
    }
    for (const group of created) {
      group.start();
    }
    scheduleTakeover(leases.nextForeignExpiry);
  }

  /** Records why a connection cannot be collected; logs only when that reason is new. */
  async function recordUnusable(row: ConnectionRow, message: string): Promise<void> {
    const changed = await sql`
      update connections set connection_error = ${message}
      where id = ${row.id} and connection_error is distinct from ${message}`;
    if (changed.count > 0) {
      logger.error({ connectionId: row.id, error: message }, "cannot collect connection");
    }
  }

  // A lease held elsewhere may lapse before the next poll: look again right when it expires.
  function scheduleTakeover(expiry: Date | null): void {
    clearTimeout(takeoverTimer);
    if (expiry === null || stopped) {
      return;
    }
    const delay = expiry.getTime() - Date.now() + 50;
    if (delay < pollMs) {
      takeoverTimer = setTimeout(() => void sync(), Math.max(0, delay));
      takeoverTimer.unref();
    }
  }

  // Calls are serialised; a call during a cycle asks for one more cycle after it.
  let cycle: Promise<void> | undefined;
  let again = false;
  function sync(): Promise<void> {
    if (stopped) {
      return Promise.resolve();
    }
    if (cycle) {
      again = true;
      return cycle;
    }
    cycle = (async () => {
      do {
        again = false;
        try {
          await reconcile();
        } catch (error) {
          logger.error({ err: describeError(error) }, "collector sync failed");
        }
      } while (again && !stopped);
      cycle = undefined;
    })();
    return cycle;
  }

  // Durable: after a datastore restart, notifications come again (and a sync runs at once).
  // Through the datastore's listening session, which comes back after a restart (and a sync runs then).
  const { datastore } = options;
  const listener = await datastore.listen(
    CONNECTIONS_CHANNEL,
    () => void sync(),
    () => void sync(),
  );
  const configListener = await datastore.listen(PROBE_CONFIGS_CHANNEL, () => void sync());
  await sync();
  pollTimer = setInterval(() => void sync(), pollMs);
  pollTimer.unref();
  const partitionTimer = setInterval(() => {
    partitions.ensureAround(clock.now()).catch((error: unknown) => {
      logger.error({ err: describeError(error) }, "creating metrics partitions failed");
    });
  }, PARTITION_CHECK_MS);
  partitionTimer.unref();
  async function detectTopology(): Promise<boolean> {
    try {
      return (await refreshClusterTopology(sql)).refreshed;
    } catch (error) {
      logger.error({ err: describeError(error) }, "cluster auto-detection failed");
      return false;
    }
  }
  const topologySeconds = options.topologySeconds ?? 30;
  const topologyTimer =
    topologySeconds > 0 ? setInterval(() => void detectTopology(), topologySeconds * 1000) : undefined;
  topologyTimer?.unref();
  const retentionMs = (options.retentionCheckSeconds ?? 3600) * 1000;
  const enforceRetention = () => {
    dropExpiredPartitions(sql, tables, clock.now(), logger).catch((error: unknown) => {
      logger.error({ err: describeError(error) }, "dropping expired metrics partitions failed");
    });
  };
  const firstRetentionTimer = setTimeout(enforceRetention, Math.min(60_000, retentionMs));
  firstRetentionTimer.unref();
  const retentionTimer = setInterval(enforceRetention, retentionMs);
  retentionTimer.unref();
  const rawActivityMs = (options.activityRawRetentionMinutes ?? 60) * 60_000;
  const activityRetentionMs = Math.min(retentionMs, ACTIVITY_RETENTION_CHECK_MS);
  const activityRetentionTimer = setInterval(() => {
    dropExpiredActivity(sql, clock.now(), rawActivityMs, logger).catch((error: unknown) => {
      logger.error({ err: describeError(error) }, "expiring activity samples failed");
    });
  }, activityRetentionMs);
  activityRetentionTimer.unref();
  const activityFlushTimer = setInterval(() => void activityStore.flush(), ACTIVITY_FLUSH_MS);
  activityFlushTimer.unref();
  // Once the datastore answers again: the leases renewed first (they lapsed meanwhile, and a run is
  // stored only while its lease names this collector), then the held runs, oldest first.
  let outageRetrying = false;
  const outageTimer = setInterval(() => {
    if (!outageBuffer.holding || outageRetrying || stopped) {
      return;
    }
    outageRetrying = true;
    void (async () => {
      try {
        await options.datastore.ping();
        await sync();
        await outageBuffer.drain(async (run) => {
          await writeCollectedRun(deps, run);
        });
      } catch (error) {
        logger.debug({ err: describeError(error) }, "datastore still unavailable");
      } finally {
        outageRetrying = false;
      }
    })();
  }, OUTAGE_RETRY_MS);
  outageTimer.unref();
  const rollupSeconds = options.rollupSeconds ?? 60;
  const rollupTimer =
    rollupSeconds > 0
      ? setInterval(() => {
          rollUpMetrics(sql, probes, clock.now(), (table, at) => partitions.ensureFor(table, at)).catch(
            (error: unknown) => {
              logger.error({ err: describeError(error) }, "rolling up metrics failed");
            },
          );
        }, rollupSeconds * 1000)
      : undefined;
  rollupTimer?.unref();
  logger.info({ instanceId, probes: probes.length }, "collector started");

  return {
    instanceId,
    connectionIds: () => [...monitors.keys()].sort((a, b) => a - b),
    sync,
    detectTopology,
    outageBuffer: () => outageBuffer.stats(),
    async stop() {
      if (stopped) {
        return;
      }
      stopped = true;
      clearInterval(pollTimer);
      clearInterval(partitionTimer);
      clearInterval(topologyTimer);
      clearTimeout(firstRetentionTimer);
      clearInterval(retentionTimer);
      clearInterval(activityRetentionTimer);
      clearInterval(activityFlushTimer);
      clearInterval(rollupTimer);
      clearInterval(outageTimer);
      clearTimeout(takeoverTimer);
      await cycle;
      await listener.unlisten().catch(() => {});
      await configListener.unlisten().catch(() => {});
      await Promise.all([...groups.values()].map((group) => group.stop()));
      groups.clear();
      monitors.clear();
      // The open minute's counts too, while the leases still name this collector.
      await activityStore.flush(true);
      await releaseLeases(sql, instanceId, CONNECTIONS_CHANNEL).catch((error: unknown) => {
        logger.warn({ err: describeError(error) }, "releasing collector leases failed");
      });
      logger.info({ instanceId }, "collector stopped");
    },
  };
}
