// A fleet on one machine: BENCH_FLEET_DATABASES databases (default 1,000) on local PostgreSQL 15
// clusters of BENCH_FLEET_DATABASES_PER_CLUSTER (100) started here, monitored for
// BENCH_FLEET_SECONDS (900) at default probe intervals by the collector and the alerter, each in a
// process of its own, with a light load on the databases. Measures both processes' CPU and peak
// memory, the collector's sessions on the clusters, the alerter's evaluation passes, the hourly
// baseline update over what was collected, and the datastore's growth.
import type { Datastore, Sql } from "../packages/datastore/src/index.js";
import { copyPartialsBack, stepTimedAlerter } from "./baseline-history.js";
import { startBusyMachine } from "./busy-machine.js";
import { collectorSessions, sessionsStarted, startFleetLoad } from "./fleet-databases.js";
import { setUpFleet } from "./fleet-setup.js";
import { percentile } from "./harness.js";
import { memoryLine } from "./memory-lines.js";
import { datastoreCpuBetween, datastoreCpuSeconds, processUsage } from "./proc.js";
import { Cleanup, exited, startChild, stopChild } from "./processes.js";
import { describeWaits, sampleSessionWaits } from "./session-waits.js";

const DATABASES = Number(process.env.BENCH_FLEET_DATABASES ?? 1000);
const PER_CLUSTER = Number(process.env.BENCH_FLEET_DATABASES_PER_CLUSTER ?? 100);
const SECONDS = Number(process.env.BENCH_FLEET_SECONDS ?? 900);
/**
 * The machine is kept busy by the benchmark itself (bench/busy-machine.ts), so that the alerter's
 * passes are measured as on a machine doing other work: BENCH_FLEET_BUSY_CPUS processes (1) spinning
 * BENCH_FLEET_BUSY_DUTY of the time (0.5), and BENCH_FLEET_BUSY_IO_MB megabytes a second (10) written
 * with an fdatasync per megabyte. `BENCH_FLEET_BUSY_CPUS=0 BENCH_FLEET_BUSY_IO_MB=0` for a quiet run.
 */
const BUSY = {
  cpus: Number(process.env.BENCH_FLEET_BUSY_CPUS ?? 1),
  duty: Number(process.env.BENCH_FLEET_BUSY_DUTY ?? 0.5),
  ioMbPerSecond: Number(process.env.BENCH_FLEET_BUSY_IO_MB ?? 10),
};
/**
 * Steady state starts once every probe has run once: the collector spreads first runs over 0.3 s per
 * connection, up to 300 s (snapshot probes' first full copies among them), plus half a minute.
 */
const WARM_UP_SECONDS = Math.round(Math.min(Math.min(300, 0.3 * DATABASES) + 30, SECONDS / 2));
/**
 * Active session sampling (probe `activity_sampling`, every second per server) runs during the
 * warm-up, is turned off (probe configuration) for the first half of the steady state and on again
 * for the second, so that the collector's cost without and with it comes from the same run, both
 * after the warm-up, and the sampled half does not inherit the warm-up's garbage.
 */
const SAMPLING_ON_SECONDS = Math.round(WARM_UP_SECONDS + (SECONDS - WARM_UP_SECONDS) / 2);
const ACTIVITY_TABLES = ["activity_samples", "activity_minutes", "activity_ticks"] as const;
const SAMPLE_SECONDS = 5;
/** How often the children's busy datastore sessions are sampled for what they wait on. */
const WAIT_SAMPLE_MS = 250;
const HOUR_MS = 3600_000;
/** The alerter's default baseline window (7 days). */
const LOOKBACK_HOURS = 7 * 24;
const MB = 1024 * 1024;

interface ProcessSample {
  at: number;
  cpuSeconds: number;
  rssBytes: number;
  peakRssBytes: number;
}

interface AlerterEvent {
  event: string;
  at: number;
  ms?: number;
  connections?: number;
  message?: string;
}

interface DatastoreSize {
  /** Bytes of the metrics schema's tables with their indexes and TOAST, per table (partitions summed). */
  metricsTables: Map<string, number>;
  metrics: number;
  /** The same for every other table (probe_runs, alerts, baselines, ...). */
  other: number;
  /** Bytes of each other table (schema-qualified), as metricsTables. */
  otherTables: Map<string, number>;
  /** Rows inserted into the metrics schema so far. */
  metricRows: number;
  /** The same per metrics table (partitions summed). */
  metricsTableRows: Map<string, number>;
  /** (connection, probe) pairs run at least once: a pair's first run stores rows later runs do not. */
  probesRun: number;
}

async function datastoreSize(sql: Sql): Promise<DatastoreSize> {
  const tables = await sql<{ schema: string; name: string; bytes: number; inserted: number }[]>`
    select n.nspname as schema, coalesce(p.relname, c.relname) as name,
      sum(pg_total_relation_size(c.oid))::float8 as bytes, coalesce(sum(s.n_tup_ins), 0)::float8 as inserted
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_inherits i on i.inhrelid = c.oid
    left join pg_class p on p.oid = i.inhparent
    left join pg_stat_user_tables s on s.relid = c.oid
    where c.relkind in ('r', 'm') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
    group by 1, 2`;
  const [runs] = await sql<{ n: number }[]>`select count(*)::int as n from probe_runs`;
  const metricsTables = new Map(
    tables.filter((table) => table.schema === "metrics").map((table) => [table.name, table.bytes]),
  );
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    metricsTables,
    metricsTableRows: new Map(
      tables.filter((table) => table.schema === "metrics").map((table) => [table.name, table.inserted]),
    ),
    metrics: sum([...metricsTables.values()]),
    other: sum(tables.filter((table) => table.schema !== "metrics").map((table) => table.bytes)),
    otherTables: new Map(
      tables
        .filter((table) => table.schema !== "metrics")
        .map((table) => [`${table.schema}.${table.name}`, table.bytes]),
    ),
    metricRows: sum(tables.filter((table) => table.schema === "metrics").map((table) => table.inserted)),
    probesRun: runs?.n ?? 0,
  };
}

interface ActivityRowSize {
  table: string;
  rows: number;
  /** Average pg_column_size of a whole row (the tuple's data, without page and index overhead). */
  rowBytes: number;
  /** pg_total_relation_size of the table's partitions (indexes included) per row. */
  storedBytes: number;
}

/** What the activity tables' rows take, measured on what the run stored. */
async function activityRowSizes(sql: Sql): Promise<ActivityRowSize[]> {
  const sizes: ActivityRowSize[] = [];
  for (const table of ACTIVITY_TABLES) {
    const [row] = await sql.unsafe<{ rows: number; row_bytes: number | null; total: number }[]>(
      `select count(*)::float8 as rows, avg(pg_column_size(t.*))::float8 as row_bytes,
         (select sum(pg_total_relation_size(i.inhrelid))::float8 from pg_inherits i
          where i.inhparent = 'metrics.${table}'::regclass) as total
       from metrics.${table} t`,
    );
    sizes.push({
      table,
      rows: row?.rows ?? 0,
      rowBytes: row?.row_bytes ?? 0,
      storedBytes: row && row.rows > 0 ? row.total / row.rows : 0,
    });
  }
  return sizes;
}

/** Cores used between two samples (CPU seconds per wall second). */
function cores(from: ProcessSample | undefined, to: ProcessSample | undefined): number {
  return from && to && to.at > from.at ? (to.cpuSeconds - from.cpuSeconds) / ((to.at - from.at) / 1000) : 0;
}

function peakMb(samples: ProcessSample[]): number {
  return Math.max(0, ...samples.map((sample) => Math.max(sample.rssBytes, sample.peakRssBytes))) / MB;
}

function describeUpdate(update: BaselineUpdate): string {
  return (
    `${update.coreSeconds.toFixed(1)} (${update.alerterSeconds.toFixed(1)} + ${update.datastoreSeconds.toFixed(1)}), ` +
    `${update.wallSeconds.toFixed(1)} (${update.partialsSeconds.toFixed(1)} + ${update.mergeSeconds.toFixed(1)}); ` +
    `${update.partials} partials, ${update.baselines} baselines`
  );
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function run(): Promise<void> {
  await new Cleanup("fleet").around(measure);
}

async function measure(cleanup: Cleanup): Promise<void> {
  const clusterCount = Math.ceil(DATABASES / PER_CLUSTER);
  console.log(
    `\n## Fleet: ${DATABASES} databases on ${clusterCount} local PostgreSQL 15 clusters, ${SECONDS} s at default intervals`,
  );
  const { datastore, clusters, setupSeconds, childEnv } = await setUpFleet(cleanup, DATABASES, PER_CLUSTER);
  const { sql } = datastore;
  console.log(`setup ${setupSeconds.toFixed(0)} s (clusters, databases, datastore)`);

  cleanup.checkpoint();
  const load = startFleetLoad(clusters, { workers: 4, perSecond: 5, dwellSeconds: 10 });
  cleanup.add("stop the load", () => load.stop());
  // The datastore's side of the children's work: CPU of their sessions' server processes.
  const datastoreBefore = await datastoreCpuSeconds(sql);
  const datastoreSeen = new Map(datastoreBefore);
  const busy = await startBusyMachine(BUSY);
  cleanup.add("stop the machine's load", () => busy.stop());
  const alerterEvents: AlerterEvent[] = [];
  const { child: alerter } = await startChild("alerter", childEnv("alerter"), (line) => {
    try {
      alerterEvents.push(JSON.parse(line) as AlerterEvent);
    } catch {
      console.log(`alerter: ${line}`);
    }
  });
  cleanup.add("stop the alerter", () => stopChild(alerter));
  // The collector's memory every 10 s (rss and V8 heap in use), to tell live data from garbage.
  const memory: { at: number; heapUsed: number }[] = [];
  const { child: collector } = await startChild("collector", childEnv("collector"), (line) => {
    const reported = memoryLine(line);
    if (reported) {
      memory.push({ at: Date.now(), heapUsed: reported.heapUsed });
    }
  });
  cleanup.add("stop the collector", () => stopChild(collector));
  cleanup.checkpoint();

  const started = Date.now();
  const waits = sampleSessionWaits(sql, ["fleet collector", "fleet alerter"], WAIT_SAMPLE_MS);
  cleanup.add("stop sampling the sessions' waits", () => waits.stop());
  const collectorSamples: ProcessSample[] = [];
  const alerterSamples: ProcessSample[] = [];
  const sessions: number[] = [];
  let warmedUp:
    | { at: number; size: DatastoreSize; datastoreSeen: typeof datastoreSeen; sessionsStarted: number }
    | undefined;
  let samplingOn: { at: number; size: DatastoreSize; datastoreSeen: typeof datastoreSeen } | undefined;
  while (Date.now() - started < SECONDS * 1000) {
    cleanup.checkpoint();
    for (const [child, name] of [
      [collector, "collector"],
      [alerter, "alerter"],
    ] as const) {
      if (exited(child)) {
        throw new Error(`the ${name} exited during the run (${child.exitCode ?? child.signalCode})`);
      }
    }
    const at = Date.now();
    collectorSamples.push({ at, ...processUsage(collector.pid) });
    alerterSamples.push({ at, ...processUsage(alerter.pid) });
    sessions.push(await collectorSessions(clusters));
    for (const [pid, session] of await datastoreCpuSeconds(sql)) {
      datastoreSeen.set(pid, session);
    }
    if (!warmedUp && at - started >= WARM_UP_SECONDS * 1000) {
      warmedUp = {
        at,
        size: await datastoreSize(sql),
        datastoreSeen: new Map(datastoreSeen),
        sessionsStarted: await sessionsStarted(clusters),
      };
      waits.mark();
      // The trigger on probe_configs tells the collector at once.
      await sql`update probe_configs set is_enabled = false where name = 'activity_sampling'`;
    }
    if (warmedUp && !samplingOn && at - started >= SAMPLING_ON_SECONDS * 1000) {
      samplingOn = { at, size: await datastoreSize(sql), datastoreSeen: new Map(datastoreSeen) };
      await sql`update probe_configs set is_enabled = true where name = 'activity_sampling'`;
    }
    await sleep(Math.max(0, at + SAMPLE_SECONDS * 1000 - Date.now()));
  }
  const end = Date.now();
  const waited = await waits.stop();
  collectorSamples.push({ at: end, ...processUsage(collector.pid) });
  alerterSamples.push({ at: end, ...processUsage(alerter.pid) });
  for (const [pid, session] of await datastoreCpuSeconds(sql)) {
    datastoreSeen.set(pid, session);
  }
  const endSize = await datastoreSize(sql);
  const endSessionsStarted = await sessionsStarted(clusters);
  const activityRows = await activityRowSizes(sql);
  const collected = await sql<{ connections: number; errors: number; error: string | null }[]>`
    select count(distinct r.connection_id)::int as connections,
      (select count(*)::int from connections where connection_error is not null) as errors,
      (select min(connection_error) from connections) as error
    from probe_runs r`;
  await stopChild(collector);
  await stopChild(alerter);
  await load.stop();
  await busy.stop();
  cleanup.checkpoint();

  const baselines = await hourlyBaselineUpdates(datastore, started, end);

  // Results.
  const steadyFrom = (samples: ProcessSample[]) =>
    samples.find((sample) => sample.at - started >= WARM_UP_SECONDS * 1000) ?? samples[0];
  const collectorCores = cores(collectorSamples[0], collectorSamples.at(-1));
  const alerterCores = cores(alerterSamples[0], alerterSamples.at(-1));
  const growthSeconds = warmedUp ? (end - warmedUp.at) / 1000 : 0;
  const perDay = (bytes: number) => (growthSeconds > 0 ? (bytes / growthSeconds) * 86400 : 0);
  const metricsPerDay = perDay(endSize.metrics - (warmedUp?.size.metrics ?? 0));
  const otherPerDay = perDay(endSize.other - (warmedUp?.size.other ?? 0));
  const totalPerDay = metricsPerDay + otherPerDay;
  const rowsPerMinute =
    growthSeconds > 0 ? ((endSize.metricRows - (warmedUp?.size.metricRows ?? 0)) / growthSeconds) * 60 : 0;
  const evaluations = alerterEvents.filter((event) => event.event === "evaluation");
  const passMs = evaluations.map((event) => event.ms ?? 0).sort((a, b) => a - b);
  const passP95 = evaluations.length > 0 ? percentile(passMs, 95) : 0;
  const problems = new Map<string, number>();
  for (const event of alerterEvents.filter((event) => event.event === "problem")) {
    problems.set(event.message ?? "", (problems.get(event.message ?? "") ?? 0) + 1);
  }
  const [summary] = collected;
  const datastoreCores = (application: string) => {
    const whole = datastoreCpuBetween(datastoreBefore, datastoreSeen, application) / ((end - started) / 1000);
    const steady = warmedUp
      ? datastoreCpuBetween(warmedUp.datastoreSeen, datastoreSeen, application) / ((end - warmedUp.at) / 1000)
      : 0;
    return `${whole.toFixed(3)} / ${steady.toFixed(3)}`;
  };
  // Sampling off: from the warm-up mark to the switch; on: from the switch to the end.
  const window = (from: number, to: number) =>
    collectorSamples.filter((sample) => sample.at >= from && sample.at <= to);
  const sampledRssMb = (samples: ProcessSample[]) =>
    Math.max(0, ...samples.map((sample) => sample.rssBytes)) / MB;
  const heapMb = (from: number, to: number) =>
    Math.max(0, ...memory.filter((m) => m.at >= from && m.at <= to).map((m) => Math.round(m.heapUsed / MB)));
  const warmMark = { at: warmedUp?.at ?? started, seen: warmedUp?.datastoreSeen ?? datastoreBefore };
  const onMark = { at: samplingOn?.at ?? end, seen: samplingOn?.datastoreSeen ?? datastoreSeen };
  const endMark = { at: end, seen: datastoreSeen };
  const describeCollector = (from: typeof warmMark, to: typeof warmMark) => {
    const samples = window(from.at, to.at);
    const seconds = Math.max(1, (to.at - from.at) / 1000);
    const datastoreWork = datastoreCpuBetween(from.seen, to.seen, "fleet collector") / seconds;
    return (
      `${cores(samples[0], samples.at(-1)).toFixed(3)} cores, ${sampledRssMb(samples).toFixed(0)} MB RSS ` +
      `and ${heapMb(from.at, to.at)} MB V8 heap in use at most (sampled every ${SAMPLE_SECONDS} / 10 s); ` +
      `its datastore sessions ${datastoreWork.toFixed(3)} cores; ${seconds.toFixed(0)} s`
    );
  };
  const onSeconds = samplingOn ? (end - samplingOn.at) / 1000 : 0;
  const activityGrowth = ACTIVITY_TABLES.map((table) => ({
    table,
    bytes: (endSize.metricsTables.get(table) ?? 0) - (samplingOn?.size.metricsTables.get(table) ?? 0),
    rows: (endSize.metricsTableRows.get(table) ?? 0) - (samplingOn?.size.metricsTableRows.get(table) ?? 0),
  }));
  const perDayOn = (value: number) => (onSeconds > 0 ? (value / onSeconds) * 86400 : 0);
  const largestOf = (end: Map<string, number>, start: Map<string, number> | undefined) =>
    [...end]
      .map(([table, bytes]) => [table, perDay(bytes - (start?.get(table) ?? 0))] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([table, bytes]) => `${table} ${(bytes / MB).toFixed(0)}`)
      .join(", ");
  const largest = largestOf(endSize.metricsTables, warmedUp?.size.metricsTables);
  const largestOther = largestOf(endSize.otherTables, warmedUp?.size.otherTables);

  console.log(
    `fleet: ${DATABASES} databases, collector ${collectorCores.toFixed(2)} cores / ${peakMb(collectorSamples).toFixed(0)} MB peak, ` +
      `alerter ${alerterCores.toFixed(2)} cores / ${peakMb(alerterSamples).toFixed(0)} MB peak, ` +
      `baselines ${baselines.week.coreSeconds.toFixed(1)} s per hour, datastore ${(totalPerDay / MB).toFixed(0)} MB per day, ` +
      `alerter passes p95 ${(passP95 / 1000).toFixed(1)} s`,
  );
  console.log("| measure | value | goal |");
  console.log("|---|---|---|");
  const rows: [string, string, string][] = [
    ["collector cores, whole run", collectorCores.toFixed(3), "< 0.5"],
    [
      `collector cores, after the first ${WARM_UP_SECONDS} s`,
      cores(steadyFrom(collectorSamples), collectorSamples.at(-1)).toFixed(3),
      "< 0.5",
    ],
    ["collector peak RSS", `${peakMb(collectorSamples).toFixed(0)} MB`, "< 500 MB"],
    [
      "collector sessions on the clusters, max sampled",
      `${Math.max(0, ...sessions)} (${sessions.at(-1) ?? 0} at the end; ${clusterCount} clusters, sampled every ${SAMPLE_SECONDS} s)`,
      "bounded",
    ],
    [
      "connections collected / with a connection error at the end",
      `${summary?.connections ?? 0} / ${summary?.errors ?? 0}${summary?.error ? ` (${summary.error.slice(0, 100)})` : ""}`,
      `${DATABASES} / 0`,
    ],
    ["alerter cores, whole run", alerterCores.toFixed(3), "< 0.3"],
    [
      `alerter cores, after the first ${WARM_UP_SECONDS} s`,
      cores(steadyFrom(alerterSamples), alerterSamples.at(-1)).toFixed(3),
      "< 0.3",
    ],
    ["alerter peak RSS", `${peakMb(alerterSamples).toFixed(0)} MB`, "—"],
    [
      `datastore server processes' cores for the collector / the alerter: whole run / after ${WARM_UP_SECONDS} s`,
      `${datastoreCores("fleet collector")}; ${datastoreCores("fleet alerter")}`,
      "—",
    ],
    [
      `the collector's busy datastore sessions after ${WARM_UP_SECONDS} s (sampled every ${WAIT_SAMPLE_MS} ms): where they were`,
      describeWaits(waited.get("fleet collector")),
      "0 % locks",
    ],
    [
      `the alerter's busy datastore sessions after ${WARM_UP_SECONDS} s: where they were`,
      describeWaits(waited.get("fleet alerter")),
      "—",
    ],
    [
      "alerter evaluation passes: count, median / p95 / max ms",
      `${evaluations.length}, ${passMs[Math.floor(passMs.length / 2)] ?? 0} / ${passP95} / ${passMs.at(-1) ?? 0} ms ` +
        `(${evaluations.at(-1)?.connections ?? 0} connections)`,
      "p95 < 5,000 ms",
    ],
    [
      "alerter passes in order: s from the start to its end, s taken",
      evaluations
        .map((event) => `${Math.round((event.at - started) / 1000)}: ${((event.ms ?? 0) / 1000).toFixed(1)}`)
        .join(", "),
      "—",
    ],
    ["the benchmark's own load on the machine", busy.description, "—"],
    [
      "alerter warnings and errors",
      problems.size === 0 ? "none" : [...problems].map(([message, n]) => `${message} ×${n}`).join("; "),
      "none",
    ],
    [
      "hourly baseline update over the collected hours alone: core s (alerter + datastore), wall s (partials + merge)",
      describeUpdate(baselines.collected),
      "—",
    ],
    [
      "the same with a week of partials before them (copies): core s (alerter + datastore), wall s (partials + merge)",
      describeUpdate(baselines.week),
      "< 60 s at 1,000",
    ],
    [
      `datastore growth per day (from the ${WARM_UP_SECONDS} s mark): metrics + the rest`,
      `${(metricsPerDay / MB).toFixed(1)} + ${(otherPerDay / MB).toFixed(1)} MB; ` +
        `${(totalPerDay / MB / DATABASES).toFixed(2)} MB per database`,
      "measured",
    ],
    [
      "(connection, probe) pairs first run after the mark, of all run by the end (their first rows, stored once, are in the growth)",
      `${endSize.probesRun - (warmedUp?.size.probesRun ?? 0)} of ${endSize.probesRun}`,
      "—",
    ],
    [
      "sessions started per second on the monitored clusters after the mark (the collector's and the load's)",
      growthSeconds > 0
        ? ((endSessionsStarted - (warmedUp?.sessionsStarted ?? 0)) / growthSeconds).toFixed(1)
        : "—",
      "—",
    ],
    ["largest metrics tables' growth, MB per day", largest, "—"],
    ["largest other tables' growth, MB per day", largestOther, "—"],
    ["metric rows stored per minute", rowsPerMinute.toFixed(0), "—"],
    [
      "datastore at the end: metrics + the rest",
      `${(endSize.metrics / MB).toFixed(0)} + ${(endSize.other / MB).toFixed(0)} MB`,
      "—",
    ],
    ["load on the databases", `${load.requests} requests, ${load.failures} failed`, "—"],
    [
      `collector with activity sampling off (${WARM_UP_SECONDS}–${SAMPLING_ON_SECONDS} s)`,
      describeCollector(warmMark, onMark),
      "—",
    ],
    [
      `collector with activity sampling every second (${SAMPLING_ON_SECONDS}–${SECONDS} s)`,
      describeCollector(onMark, endMark),
      "—",
    ],
    ...activityRows.map(({ table, rows, rowBytes, storedBytes }): [string, string, string] => [
      `${table} at the end: rows, bytes per row (pg_column_size / table and indexes per row)`,
      `${rows}, ${rowBytes.toFixed(0)} / ${storedBytes.toFixed(0)}`,
      "measured",
    ]),
    ...activityGrowth.map(({ table, bytes, rows }): [string, string, string] => [
      `${table} while sampling: rows per minute, growth per day (whole fleet / per database)`,
      `${onSeconds > 0 ? ((rows / onSeconds) * 60).toFixed(0) : 0} rows/min, ` +
        `${(perDayOn(bytes) / MB).toFixed(1)} MB / ${(perDayOn(bytes) / DATABASES / 1024).toFixed(1)} KB per day` +
        `${rows > 0 ? `, ${(bytes / rows).toFixed(0)} bytes per row with indexes` : ""}`,
      "measured",
    ]),
  ];
  for (const row of rows) {
    console.log(`| ${row.join(" | ")} |`);
  }
}

interface BaselineUpdate {
  coreSeconds: number;
  alerterSeconds: number;
  datastoreSeconds: number;
  wallSeconds: number;
  partialsSeconds: number;
  mergeSeconds: number;
  /** Baselines and hourly partials stored after the update. */
  baselines: number;
  partials: number;
}

/**
 * The alerter's hourly baseline update as it would run at two minutes past the hour after the
 * collection: the collected hours' partials computed (the hour before the update again, as every
 * update does when the previous one ran less than 5 minutes after its hour ended) and every series
 * merged. Twice: over what was collected alone, then with a week of partials before it (copies of the
 * first collected hour's), as a fleet monitored for a week would have. Core time is the update's
 * process CPU plus the CPU of the datastore's server processes (as in bench/baselines.bench.ts).
 */
async function hourlyBaselineUpdates(
  datastore: Datastore,
  collectedFrom: number,
  collectedUntil: number,
): Promise<{ collected: BaselineUpdate; week: BaselineUpdate }> {
  const { sql } = datastore;
  const nextHour = Math.ceil(collectedUntil / HOUR_MS) * HOUR_MS;
  const now = new Date(nextHour + 120_000);
  const { alerter, steps } = stepTimedAlerter(datastore, () => now);
  const update = async (): Promise<BaselineUpdate> => {
    steps.partialsMs = 0;
    steps.mergeMs = 0;
    const cpu = process.cpuUsage();
    const datastoreBefore = await datastoreCpuSeconds(sql);
    const started = performance.now();
    await alerter.calculateBaselines();
    const wallSeconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    const datastoreSeconds = datastoreCpuBetween(datastoreBefore, await datastoreCpuSeconds(sql));
    const [stored] = await sql<{ baselines: number; partials: number }[]>`
      select (select count(*)::int from metric_baselines) as baselines,
        (select count(*)::int from metric_baseline_hours) as partials`;
    const alerterSeconds = (user + system) / 1e6;
    return {
      coreSeconds: alerterSeconds + datastoreSeconds,
      alerterSeconds,
      datastoreSeconds,
      wallSeconds,
      partialsSeconds: steps.partialsMs / 1000,
      mergeSeconds: steps.mergeMs / 1000,
      baselines: stored?.baselines ?? 0,
      partials: stored?.partials ?? 0,
    };
  };
  try {
    const collected = await update();
    const firstHour = Math.floor(collectedFrom / HOUR_MS) * HOUR_MS;
    await copyPartialsBack(sql, new Date(firstHour), LOOKBACK_HOURS - (nextHour - firstHour) / HOUR_MS);
    const week = await update();
    return { collected, week };
  } finally {
    await alerter.stop();
  }
}
