// GET /api/v1/metrics/query over 30 days of one-minute data for 50 connections (about 2.2 million
// rows), next to the same aggregation as plain SQL; then the collector's CPU and memory while it
// monitors 100 databases.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureMetricsTables, findProbe, PartitionManager } from "../packages/collector/src/index.js";
import {
  encryptSecret,
  loadSecretKey,
  openDatastore,
  type Sql,
  silentLogger,
  startEmbeddedServer,
} from "../packages/datastore/src/index.js";
import { rollUpMetrics, rollupTables } from "../packages/monitoring/src/index.js";
import { startApiOnly } from "./datastore.js";
import { timed } from "./harness.js";
import { processUsage } from "./proc.js";

const CONNECTIONS = 50;
const DAYS = 30;
const BUCKETS = 150;
const RUNS = Number(process.env.BENCH_METRICS_RUNS ?? 7);
const MONITORED_DATABASES = Number(process.env.BENCH_MONITORED_DATABASES ?? 100);
const COLLECTOR_SECONDS = Number(process.env.BENCH_COLLECTOR_SECONDS ?? 120);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** BENCH_METRICS_PARTS=query or =collector runs one half only. */
export async function run(): Promise<void> {
  const parts = process.env.BENCH_METRICS_PARTS ?? "query,collector";
  if (parts.includes("query")) {
    await metricsQuery();
  }
  if (parts.includes("collector")) {
    await collectorFootprint();
  }
}

async function metricsQuery(): Promise<void> {
  const service = await startApiOnly();
  try {
    const { sql } = service.datastore;
    const probe = findProbe("pg_connectivity");
    if (!probe) {
      throw new Error("pg_connectivity is not in the catalogue");
    }
    await ensureMetricsTables(sql, [probe]);
    const partitions = new PartitionManager(sql, [probe]);
    const now = new Date();
    for (let week = 0; week <= Math.ceil(DAYS / 7) + 1; week += 1) {
      await partitions.ensureAround(new Date(now.getTime() - week * 7 * 24 * 3600 * 1000));
    }
    const generation = await timed(async () => {
      await sql`
        insert into connections (name, host, port, database_name, username, owner_username, is_monitored)
        select 'bench-' || g, '127.0.0.1', 5432, 'postgres', 'postgres', 'admin', false
        from generate_series(1, ${CONNECTIONS}) g`;
      await sql`
        insert into metrics.pg_connectivity (connection_id, collected_at, response_time_ms)
        select c.id, t, 1 + random() * 20
        from connections c
        cross join generate_series(${now.toISOString()}::timestamptz - make_interval(days => ${DAYS}),
          ${now.toISOString()}::timestamptz, interval '1 minute') t
        where c.name like 'bench-%'`;
      await sql`analyze metrics.pg_connectivity`;
    });
    const [{ rows } = { rows: 0 }] = await sql<
      { rows: number }[]
    >`select count(*)::int as rows from metrics.pg_connectivity`;
    const ids = (
      await sql<{ id: number }[]>`select id from connections where name like 'bench-%' order by id`
    ).map((row) => row.id);
    const login = await fetch(`${service.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "bench-admin-password-0123" }),
    });
    const { session_token: token } = (await login.json()) as { session_token: string };

    const variants = [
      { title: `${CONNECTIONS} connections`, ids },
      { title: "1 connection", ids: ids.slice(0, 1) },
    ];
    console.log(`\n## GET /api/v1/metrics/query, ${DAYS} days of one-minute data, ${BUCKETS} buckets`);
    console.log(`${rows} rows generated in ${(generation / 1000).toFixed(1)} s; median of ${RUNS} runs each`);
    console.log("| series | source | plain SQL ms | endpoint ms | endpoint / SQL |");
    console.log("|---|---|---|---|---|");
    const compare = () => compareWithPlainSql(sql, service.url, token, variants);
    await compare();
    // Rollups as a collector would have kept them over the whole period (the probe's raw retention
    // is 7 days; the rollups of the weeks before were made while their rows still existed).
    const rolling = performance.now();
    await ensureMetricsTables(sql, rollupTables);
    const rollupPartitions = new PartitionManager(sql, rollupTables);
    const longer = { ...probe, retentionDays: DAYS + 1 };
    // A day per pass until caught up.
    for (let day = 0; day <= DAYS + 1; day += 1) {
      await rollUpMetrics(sql, [longer], now, (table, at) => rollupPartitions.ensureFor(table, at));
    }
    console.log(`(rollups written in ${((performance.now() - rolling) / 1000).toFixed(1)} s)`);
    await compare();
  } finally {
    await service.close();
  }
}

/** The endpoint against the same aggregation as plain SQL over the raw rows, per variant. */
async function compareWithPlainSql(
  sql: Sql,
  url: string,
  token: string,
  variants: { title: string; ids: number[] }[],
): Promise<void> {
  const [progress] = await sql<{ resolution: number | null }[]>`
    select max(resolution_seconds)::int as resolution from metric_rollup_progress`;
  const source = progress?.resolution ? `rollups (${progress.resolution} s)` : "raw rows";
  for (const variant of variants) {
    const query = `${url}/api/v1/metrics/query?connection_ids=${variant.ids.join(",")}&probe_name=pg_connectivity&time_range=${DAYS}d&buckets=${BUCKETS}`;
    const endpoint = async () => {
      const res = await fetch(query, { headers: { authorization: `Bearer ${token}` } });
      if (res.status !== 200) {
        throw new Error(`metrics query answered ${res.status}: ${await res.text()}`);
      }
      await res.json();
    };
    // The same aggregation the endpoint asked the datastore for before rollups, over the raw rows.
    const plain = async () => {
      const end = Math.floor(Date.now() / 1000);
      const width = Math.floor((DAYS * 86400) / BUCKETS);
      await sql.unsafe(
        `select connection_id, floor((extract(epoch from collected_at) - $2) / $4)::int as bucket,
           avg(response_time_ms)::float8 as value
         from metrics.pg_connectivity
         where connection_id = any($1::int[]) and collected_at >= to_timestamp($2) and collected_at < to_timestamp($3)
         group by 1, 2`,
        [variant.ids, end - width * BUCKETS, end, width],
      );
    };
    await endpoint();
    await plain();
    const sqlTimes: number[] = [];
    const endpointTimes: number[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      sqlTimes.push(await timed(plain));
      endpointTimes.push(await timed(endpoint));
    }
    const [s, e] = [median(sqlTimes), median(endpointTimes)];
    const goal = progress?.resolution ? `SQL / endpoint ${(s / e).toFixed(1)}x, goal >= 10x` : "goal <= 1.5x";
    console.log(
      `| ${variant.title} | ${source} | ${s.toFixed(1)} | ${e.toFixed(1)} | ${(e / s).toFixed(2)}x (${goal}) |`,
    );
  }
}

async function collectorFootprint(): Promise<void> {
  const monitoredDir = await mkdtemp(join(tmpdir(), "dbmon-bench-monitored-"));
  const secretDir = await mkdtemp(join(tmpdir(), "dbmon-bench-secret-"));
  let monitored = await startEmbeddedServer({ dataDir: monitoredDir, port: 0, logger: silentLogger });
  // Up to 3 sessions for each of the 100 connections: beyond the default 100 of one server.
  const raise = await openDatastore({
    databaseUrl: monitored.url,
    dataDir: "",
    migrate: false,
    maxConnections: 1,
  });
  await raise.sql`alter system set max_connections = 400`;
  await raise.close();
  await monitored.stop();
  monitored = await startEmbeddedServer({
    dataDir: monitoredDir,
    port: monitored.port,
    logger: silentLogger,
  });
  const admin = await openDatastore({
    databaseUrl: monitored.url,
    dataDir: "",
    migrate: false,
    maxConnections: 2,
  });
  const service = await startApiOnly();
  try {
    // One role per database, allowed into its own database only: 100 monitored databases, each
    // collected once (as 100 separate servers would be), on a server of the benchmark's own.
    const setup = await timed(async () => {
      await admin.sql`revoke connect on database postgres from public`;
      const key = await loadSecretKey({ dataDir: secretDir });
      for (let index = 1; index <= MONITORED_DATABASES; index += 1) {
        const name = `bench_mon_${index}`;
        await admin.sql.unsafe(`create role ${name} login password '${name}-secret' in role pg_monitor`);
        await admin.sql.unsafe(`create database ${name}`);
        await admin.sql.unsafe(`revoke connect on database ${name} from public`);
        await admin.sql.unsafe(`grant connect on database ${name} to ${name}`);
        await service.datastore.sql`
          insert into connections (name, host, port, database_name, username, password_encrypted, sslmode, owner_username)
          values (${name}, '127.0.0.1', ${monitored.port}, ${name}, ${name}, ${encryptSecret(key, `${name}-secret`)},
            'disable', 'admin')`;
      }
    });
    const script = fileURLToPath(new URL("./collector-process.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, BENCH_DATASTORE_URL: service.datastore.url, BENCH_SECRET_DIR: secretDir },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("collector started")) {
          resolve();
        }
      });
      child.once("exit", (code) => reject(new Error(`collector exited with ${code}`)));
    });
    const pid = child.pid as number;
    const samples: { at: number; cpuSeconds: number; rssBytes: number }[] = [];
    const started = Date.now();
    while (Date.now() - started < COLLECTOR_SECONDS * 1000) {
      samples.push({ at: Date.now(), ...processUsage(pid) });
      await new Promise((done) => setTimeout(done, 1000));
    }
    const [collected] = await service.datastore.sql<{ n: number }[]>`
      select count(distinct connection_id)::int as n from probe_runs`;
    const errors = await service.datastore.sql<{ error: string | null; n: number }[]>`
      select left(connection_error, 120) as error, count(*)::int as n from connections group by 1`;
    const leases = await service.datastore.sql<{ holder: string; n: number }[]>`
      select holder, count(*)::int as n from collector_leases group by 1`;
    const sessions = await admin.sql<{ n: number; max: string }[]>`
      select count(*)::int as n, current_setting('max_connections') as max from pg_stat_activity
      where backend_type = 'client backend'`;
    const failing = errors.filter((row) => row.error !== null);
    child.kill("SIGTERM");
    await new Promise((done) => child.once("exit", done));
    const first = samples[0];
    const last = samples.at(-1);
    const steadyFrom = samples.find((sample) => sample.at - started >= 60_000) ?? first;
    const cores = (a: typeof first, b: typeof last) =>
      a && b && b.at > a.at ? (b.cpuSeconds - a.cpuSeconds) / ((b.at - a.at) / 1000) : 0;
    const peak = Math.max(...samples.map((sample) => sample.rssBytes));
    console.log(
      `\n## Collector monitoring ${MONITORED_DATABASES} databases (${COLLECTOR_SECONDS} s, all 36 probes at their default intervals)`,
    );
    console.log(
      `setup ${(setup / 1000).toFixed(1)} s; ${collected?.n ?? 0} connections collected by ` +
        `${leases.length} collector; ${sessions[0]?.n ?? 0} sessions open on the monitored server at the end; ` +
        `connection errors: ${failing.length === 0 ? "none" : JSON.stringify(failing)}`,
    );
    console.log("| measure | value | target |");
    console.log("|---|---|---|");
    console.log(
      `| CPU, whole window (first runs of every probe included) | ${cores(first, last).toFixed(2)} cores | < 1 core |`,
    );
    console.log(`| CPU, after the first minute | ${cores(steadyFrom, last).toFixed(2)} cores | < 1 core |`);
    console.log(`| peak resident memory | ${(peak / 1048576).toFixed(0)} MB | < 300 MB |`);
  } finally {
    await admin.close();
    await monitored.stop();
    await service.close();
    await rm(monitoredDir, { recursive: true, force: true });
    await rm(secretDir, { recursive: true, force: true });
  }
}
