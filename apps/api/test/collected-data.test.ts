import { randomBytes } from "node:crypto";
import { findProbe, type ProbeDefinition, type RunningCollector, startCollector } from "@dbmon/collector";
import { execStatements } from "@dbmon/datastore/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { monitorTestServer } from "./monitoring-support.js";
import {
  buildTestApp,
  callBridgeTool,
  createUser,
  requestJson,
  serveTestApp,
  type TestApp,
  type TestUser,
  withAlerter,
} from "./support.js";

/**
 * Issue 25's bugs, on data the real collector gathered from the test server itself: a database
 * created, used and dropped while the collector watches.
 */

/** The probes these tests read, each second instead of every few minutes. */
const PROBES = [
  "pg_stat_database",
  "pg_database",
  "pg_stat_checkpointer",
  "pg_settings",
  "pg_server_info",
  "pg_sys_os_info",
  "pg_stat_activity",
];

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe("issue 25's bugs on collected data", { timeout: 90_000 }, () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveTestApp>>;
  let mcp: Client;
  let root: TestUser;
  let id: number;
  /** The app's clock: the real time unless a test moves it. */
  let now: (() => Date) | undefined;
  let collector: RunningCollector | undefined;
  /** A database of the monitored server that exists for a few collections, then is dropped. */
  const dropped = `dbmon_dropped_${randomBytes(4).toString("hex")}`;
  /** Epoch seconds of the last collection that saw it and of the first one after it was dropped. */
  let lastWith: number;
  let firstWithout: number;

  const collections = async (probe: string) =>
    t.datastore.sql.unsafe<{ at: number; names: string[] }[]>(
      `select extract(epoch from collected_at)::float8 as at, array_agg(database_name::text) as names
       from metrics.${probe} where connection_id = $1 group by collected_at order by collected_at`,
      [id],
    );

  /** Waits (collecting) until `done` answers something. */
  async function until<T>(what: string, done: () => Promise<T | undefined>): Promise<T> {
    const deadline = Date.now() + 45_000;
    for (;;) {
      const value = await done().catch(() => undefined);
      if (value !== undefined) {
        return value;
      }
      if (Date.now() > deadline) {
        const seen = await collections("pg_stat_database");
        throw new Error(
          `not collected within 45 s: ${what}; pg_stat_database: ${JSON.stringify(seen.slice(-6))}`,
        );
      }
      await pause(250);
    }
  }

  beforeAll(async () => {
    t = await buildTestApp({ clock: { now: () => now?.() ?? new Date() } });
    root = await createUser(t, "root", { superuser: true });
    id = await monitorTestServer(t, "root");
    for (const name of PROBES) {
      await t.datastore
        .sql`insert into probe_configs (name, collection_interval_seconds, retention_days, scope, scope_id)
        values (${name}, 1, 7, 'global', 0)`;
    }
    const server = new URL(t.database.url);
    server.pathname = "/postgres";
    await execStatements(server.toString(), `create database ${dropped}`);
    const inDropped = new URL(server);
    inDropped.pathname = `/${dropped}`;
    // Thousands of commits in the database about to go: more than the others make in a second.
    const session = postgres(inDropped.toString(), { max: 4, onnotice: () => {} });
    try {
      await Promise.all(Array.from({ length: 4000 }, () => session`select 1`));
    } finally {
      await session.end({ timeout: 1 });
    }
    collector = await startCollector({
      datastore: t.datastore,
      logger: t.services.logger,
      secretKey: t.services.secretKey,
      leaseSeconds: 6,
      probes: PROBES.map((name) => findProbe(name) as ProbeDefinition),
    });
    // Two collections with it (a rate before the drop), then one without it.
    await until("two collections of the database", async () => {
      const seen = (await collections("pg_stat_database")).filter((c) => c.names.includes(dropped));
      return seen.length >= 2 ? true : undefined;
    });
    // A query running until the collector stops: its duration so far has many decimals.
    const sleeper = postgres(t.database.url, { max: 1, onnotice: () => {} });
    const sleeping = sleeper`select pg_sleep(60) as dbmon_issue_25`.execute();
    sleeping.catch(() => {});
    await until("a running query", async () => {
      const [activity] = await t.datastore.sql<{ found: boolean }[]>`
        select to_regclass('metrics.pg_stat_activity') is not null as found`;
      return activity?.found &&
        (
          await t.datastore.sql`select 1 from metrics.pg_stat_activity
            where connection_id = ${id} and query like '%dbmon_issue_25%' and state = 'active' limit 1`
        ).length
        ? true
        : undefined;
    });
    await execStatements(server.toString(), `drop database ${dropped} with (force)`);
    [lastWith, firstWithout] = await until("a collection after the drop", async () => {
      const all = await collections("pg_stat_database");
      const last = all.findLastIndex((c) => c.names.includes(dropped));
      const after = all[last + 1];
      const [sizes] = await t.datastore.sql<{ at: number | null }[]>`
        select extract(epoch from max(collected_at))::float8 as at from metrics.pg_database where connection_id = ${id}`;
      return after && (sizes?.at ?? 0) >= after.at
        ? ([all[last]?.at as number, after.at] as const)
        : undefined;
    });
    await collector.stop();
    collector = undefined;
    sleeping.cancel();
    await sleeper.end({ timeout: 1 });
    served = await serveTestApp(t);
    mcp = new Client({ name: "dbmon-test", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}/mcp/v1`), {
        requestInit: { headers: { Authorization: `Bearer ${root.token}` } },
      }),
    );
  }, 120_000);

  afterAll(async () => {
    await collector?.stop();
    await mcp?.close();
    await served?.close();
    if (t) {
      // The test server is shared: the database goes even when the setup failed before dropping it.
      const server = new URL(t.database.url);
      server.pathname = "/postgres";
      await execStatements(server.toString(), `drop database if exists ${dropped} with (force)`);
    }
    await t?.close();
  });

  /** The text of a tool result, from the SDK's client or the REST bridge. */
  const textOf = (result: unknown) =>
    (result as { content: { text: string }[] }).content.map((part) => part.text).join("\n");

  const get = async <T>(path: string): Promise<T> => {
    const res = await requestJson(t.app, path, { token: root.token });
    expect(res.status, path).toBe(200);
    return (await res.json()) as T;
  };

  it("differences commits per database: a database dropped between two collections leaves a rate", async () => {
    const rows = await t.datastore.sql<{ database_name: string; at: number; commits: number }[]>`
      select database_name, extract(epoch from collected_at)::float8 as at, xact_commit::float8 as commits
      from metrics.pg_stat_database
      where connection_id = ${id} and collected_at >= to_timestamp(${lastWith})
      order by collected_at`;
    const times = [...new Set(rows.map((row) => row.at))];
    const commitsAt = (at: number) =>
      new Map(rows.filter((r) => r.at === at).map((r) => [r.database_name, r.commits]));
    expect(commitsAt(lastWith).has(dropped)).toBe(true);
    expect(commitsAt(firstWithout).has(dropped)).toBe(false);
    // Commits per second of each interval from the drop on (the collector may have run once more
    // before it stopped), per database present at both ends, as the collector stored them.
    const rates = times.slice(1).map((at, index) => {
      const previous = commitsAt(times[index] as number);
      const commits = [...commitsAt(at)].reduce(
        (sum, [name, value]) => sum + value - (previous.get(name) ?? value),
        0,
      );
      return commits / (at - (times[index] as number));
    });
    // The window starts just before the first collection without it: the drop's interval and later.
    now = () => new Date((firstWithout - 0.001) * 1000 + 3600_000);
    try {
      const summary = await get<{
        connections: { transactions: { commits_per_sec: number | null; time_series: unknown[] } }[];
      }>(`/api/v1/metrics/performance-summary?connection_id=${id}&time_range=1h`);
      const transactions = summary.connections[0]?.transactions;
      expect(transactions?.time_series).toHaveLength(1);
      const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
      expect(transactions?.commits_per_sec).toBe(Math.round(mean * 10) / 10);
    } finally {
      now = undefined;
    }
  });

  it("lists the databases of the latest collection only, not one dropped since", async () => {
    const { databases } = await get<{ databases: { database_name: string; size_bytes: number | null }[] }>(
      `/api/v1/metrics/database-summaries?connection_id=${id}&time_range=1h`,
    );
    const names = databases.map((database) => database.database_name);
    expect(names).not.toContain(dropped);
    expect(names).toContain(t.database.name);
    expect(
      databases.find((database) => database.database_name === t.database.name)?.size_bytes,
    ).toBeGreaterThan(0);
  });

  it("ignores tool arguments a tool does not declare, over /mcp/v1 and the REST bridge, and logs them", async () => {
    const args = {
      connection_id: id,
      metric_name: "pg_stat_database.xact_commit",
      reasoning: "models add keys of their own",
    };
    const results = [
      await mcp.callTool({ name: "get_metric_baselines", arguments: args }),
      await callBridgeTool(t, root.token, "get_metric_baselines", args),
    ];
    for (const result of results) {
      expect(result.isError, textOf(result)).toBeFalsy();
      // The collected commits' statistics.
      expect(textOf(result)).toMatch(/^metric\tmean\t/);
      expect(textOf(result)).toContain("pg_stat_database.xact_commit\t");
    }
    expect(
      t.logs.filter((line) => line.msg === "MCP tool arguments not declared by the tool ignored"),
    ).toEqual([
      expect.objectContaining({ level: 20, tool: "get_metric_baselines", keys: ["reasoning"] }),
      expect.objectContaining({ level: 20, tool: "get_metric_baselines", keys: ["reasoning"] }),
    ]);
    // Declared arguments are still checked.
    const wrong = await callBridgeTool(t, root.token, "get_metric_baselines", {
      ...args,
      connection_id: "3",
    });
    expect(wrong.isError).toBe(true);
  });

  it("reads a resource of the connection its URI names, without a selected connection", async () => {
    const unselected = await mcp.readResource({ uri: "pg://system_info" }).catch((error: Error) => error);
    expect(String(unselected)).toContain("add ?connection_id=N to the resource URI");
    const { contents } = await mcp.readResource({ uri: `pg://system_info?connection_id=${id}` });
    expect(contents).toHaveLength(1);
    expect(contents[0]?.uri).toBe(`pg://system_info?connection_id=${id}`);
    const document = JSON.parse(String((contents[0] as { text?: string } | undefined)?.text)) as {
      connection: { id: number; database: string };
      server: { postgresql?: { version?: string } } | string;
    };
    expect(document.connection).toMatchObject({ id, database: t.database.name });
    // What the collector gathered, not "Nothing collected".
    expect(typeof document.server).toBe("object");
    // The read_resource tool takes it as an argument.
    const viaTool = await callBridgeTool(t, root.token, "read_resource", {
      uri: "pg://system_info",
      connection_id: id,
    });
    expect(viaTool.isError).toBeFalsy();
    expect(JSON.parse(textOf(viaTool))).toEqual(document);
    for (const uri of [`pg://system_info?connection_id=0`, `pg://system_info?connection=${id}`]) {
      await expect(mcp.readResource({ uri })).rejects.toThrow(/connection_id/);
    }
  });

  it("lists every stored baseline of a connection when get_metric_baselines names no metric", async () => {
    await withAlerter(t, (alerter) => alerter.calculateBaselines({ full: true }), {
      // An hour on: baselines hold complete hours only, and the collections are of this one.
      clock: { now: () => new Date(Date.now() + 3600_000) },
    });
    const stored = await t.datastore.sql<{ metric_name: string }[]>`
      select distinct metric_name from metric_baselines where connection_id = ${id} and period = 'all'
      order by 1`;
    expect(stored.length).toBeGreaterThan(0);
    const [series] = await t.datastore.sql<{ n: number }[]>`
      select count(*)::int as n from metric_baselines where connection_id = ${id} and period = 'all'`;
    for (const result of [
      await mcp.callTool({ name: "get_metric_baselines", arguments: { connection_id: id, limit: 1000 } }),
      await callBridgeTool(t, root.token, "get_metric_baselines", { connection_id: id, limit: 1000 }),
    ]) {
      expect(result.isError, textOf(result)).toBeFalsy();
      const [count, header, ...lines] = textOf(result).split("\n");
      expect(count).toBe(`${series?.n} baseline(s)`);
      expect(lines).toHaveLength(series?.n ?? 0);
      expect(header).toBe(
        "metric_name\tdatabase_name\tobject_name\tmean\tstddev\tmin\tmax\tsample_count\tlast_sample_at",
      );
      expect([...new Set(lines.map((line) => line.split("\t")[0]))]).toEqual(
        stored.map((row) => row.metric_name),
      );
    }
  });

  it("rounds a fired alert's measured value in the timeline, as people read it", async () => {
    // The longest running query, as collected, fires its rule with the threshold at 0.
    await t.datastore.sql`update alert_rules set default_threshold = 0 where name = 'long_running_queries'`;
    await withAlerter(t, (alerter) => alerter.evaluate(), { anomaly: false });
    const [alert] = await t.datastore.sql<{ id: number; metric_value: number }[]>`
      select id::int as id, metric_value from alerts
      where connection_id = ${id} and metric_name = 'pg_stat_activity.max_query_duration_seconds'`;
    expect(alert).toBeDefined();
    const value = alert?.metric_value as number;
    const rounded = value >= 1 ? Math.round(value * 100) / 100 : Number(value.toPrecision(3));
    const start = new Date(Date.now() - 3600_000).toISOString();
    const end = new Date(Date.now() + 60_000).toISOString();
    const { events } = await get<{ events: { details: Record<string, unknown> }[] }>(
      `/api/v1/timeline/events?start_time=${start}&end_time=${end}&event_types=alert_fired&connection_id=${id}`,
    );
    const fired = events.find((event) => event.details.alert_id === alert?.id);
    expect(fired?.details).toMatchObject({ metric_value: rounded, metric_unit: "seconds" });
  });
});
