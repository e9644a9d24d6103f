import { type RunningAlerter, silentAlerterLogger } from "@dbmon/alerter";
import { createHarness, type Harness } from "@dbmon/alerter/testing";
import { findProbe, type ProbeDefinition, type RunningCollector, startCollector } from "@dbmon/collector";
import { builtInRules } from "@dbmon/datastore";
import {
  execStatements,
  machinePostgresBinariesAvailable,
  startPrimary,
  startStandby,
  type TestServer,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Every built-in rule, end to end: a real condition on a PostgreSQL 15 server of this file's own
 * (a primary `P` and its streaming standby `S`), collected by the real collector, raises the alert
 * through the real alerter; once the condition is removed and collected again, the alert clears.
 * Thresholds are lowered (server overrides) only where the condition cannot be produced on a test
 * machine or would take minutes; each place says why. The collected values are always real.
 */

/** Probes the rules read, and how often they run here (seconds; the defaults are minutes). */
const PROBE_SECONDS: Readonly<Record<string, number>> = {
  pg_stat_activity: 1,
  pg_stat_replication: 1,
  pg_replication_slots: 1,
  pg_node_role: 1,
  pg_settings: 1,
  pg_database: 1,
  pg_stat_checkpointer: 1,
  pg_stat_wal: 1,
  pg_stat_database: 1,
  pg_stat_all_tables: 2,
  pg_stat_statements: 2,
  spock_exception_log: 2,
  spock_resolutions: 2,
  pg_sys_cpu_usage_info: 2,
  pg_sys_memory_info: 2,
  pg_sys_disk_info: 2,
  pg_sys_load_avg_info: 2,
  // The host's vCPUs, which database_load_above_vcpus divides the load by.
  pg_sys_cpu_info: 2,
};

/** The standby serves the rules about itself; its other probes are turned off (probe configuration). */
const STANDBY_PROBES = new Set(["pg_settings", "pg_stat_replication"]);

const MIB = 1024 * 1024;

interface AlertRow {
  id: number;
  rule: string;
  status: string;
  database_name: string | null;
  object_name: string | null;
  metric_value: number | null;
  severity: string;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Polls until `check` answers something; after 20 s (or `ms`) fails with what `explain` says. */
async function pollUntil<T>(
  check: () => Promise<T | undefined>,
  explain: () => Promise<string>,
  ms = 20_000,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) {
      return value;
    }
    if (Date.now() > until) {
      throw new Error(await explain());
    }
    await pause(200);
  }
}

/** Runs statements on a session of its own, closed afterwards; answers the last result. */
const exec = execStatements;

/** `count` open sessions to `url`, each a client backend of its own. */
async function openSessions(url: string, count: number): Promise<postgres.Sql[]> {
  const sessions = Array.from({ length: count }, () => postgres(url, { max: 1, onnotice: () => {} }));
  await Promise.all(sessions.map((session) => session`select 1`));
  return sessions;
}

const closeSessions = (sessions: postgres.Sql[]) =>
  Promise.all(sessions.map((session) => session.end({ timeout: 1 })));

// Starts servers with the machine's PostgreSQL 15 binaries (CI has them); a machine with only
// Node.js skips this file.
describe.skipIf(!machinePostgresBinariesAvailable())(
  "every built-in rule on real conditions",
  { timeout: 60_000 },
  () => {
    let h: Harness;
    let alerter: RunningAlerter;
    let collector: RunningCollector | undefined;
    let primary: TestServer;
    let standby: TestServer;
    let app: string;
    /** Connection ids of the primary and the standby. */
    let P: number;
    let S: number;
    const rules = new Map<string, { id: number; severity: string }>();
    /** Rules seen to fire and clear in this file. */
    const covered = new Set<string>();
    /** Evaluations never go back in time: collections already evaluated are not evaluated again. */
    let evaluatedUpTo = 0;

    beforeAll(async () => {
      [h, primary] = await Promise.all([
        createHarness(),
        startPrimary("logical", {
          // Seventeen client sessions are past 80 % of it.
          max_connections: 20,
          shared_preload_libraries: "'pg_stat_statements'",
          // Archiving works until a test breaks it.
          archive_mode: "on",
          archive_command: "'true'",
          // Autovacuum looks at every database each second (dead tuples are cleaned up while we watch).
          autovacuum_naptime: "1s",
          // The smallest value allowed: 75 % of it is 75,000 transactions, a second's work.
          autovacuum_freeze_max_age: 100_000,
          deadlock_timeout: "'100ms'",
        }),
      ]);
      // More than 500 connections: the standby is where high_max_connections fires for real.
      standby = await startStandby(primary, {
        max_connections: 600,
        // Replay progress reaches the primary each second; a new upstream is tried after a second.
        wal_receiver_status_interval: "1s",
        wal_retrieve_retry_interval: "1s",
      });
      app = primary.urlOf("app");
      await exec(primary.url, "create database app");
      await exec(
        app,
        "create extension pg_stat_statements",
        "create table accounts (id integer primary key, balance integer not null)",
        "insert into accounts values (1, 0), (2, 0)",
        // 46 MB: far more than shared_buffers (16 MB), so scans read it from outside the buffer cache.
        "create table big as select g as id, repeat('x', 200) as pad from generate_series(1, 200000) g",
        "create table wal_filler (n integer)",
        "create publication dbmon_pub for table accounts",
        // The Spock extension cannot be installed here: stand-ins of the two tables its probes read,
        // with the columns they select (the others are stored as NULL).
        "create schema spock",
        `create table spock.exception_log (remote_origin oid, remote_commit_ts timestamptz, command_counter integer,
        retry_errored_at timestamptz not null, table_schema text, table_name text, operation text, error_message text)`,
        `create table spock.resolutions (id bigserial primary key, node_name name, log_time timestamptz not null,
        relname text, idxname text, conflict_type text, conflict_resolution text)`,
        // No VACUUM here: the statistics of a new database start empty, so the catalog rows this setup
        // updated are dead tuples of tables whose n_live_tup is near 0. autovacuum_not_running goes
        // by pg_class.reltuples, as autovacuum does, and must stay quiet about them.
      );

      const sql = h.datastore.sql;
      for (const row of await sql<{ name: string; id: number; default_severity: string }[]>`
      select name, id, default_severity from alert_rules`) {
        rules.set(row.name, { id: row.id, severity: row.default_severity });
      }
      const connection = async (name: string, port: number) => {
        const [row] = await sql<{ id: number }[]>`
        insert into connections (name, host, port, database_name, username, sslmode, owner_username)
        values (${name}, '127.0.0.1', ${port}, 'postgres', 'postgres', 'disable', 'admin') returning id`;
        return (row as { id: number }).id;
      };
      P = await connection("primary", primary.port);
      S = await connection("standby", standby.port);
      // Short intervals through the probe configuration, which the alerter's stale-metrics rule reads
      // too; the collector seeds only what is missing.
      for (const [name, seconds] of Object.entries(PROBE_SECONDS)) {
        await sql`insert into probe_configs (name, collection_interval_seconds, retention_days, scope, scope_id)
        values (${name}, ${seconds}, 7, 'global', 0)`;
        if (!STANDBY_PROBES.has(name)) {
          await sql`insert into probe_configs (name, collection_interval_seconds, retention_days, is_enabled, scope, scope_id)
          values (${name}, ${seconds}, 7, false, 'server', ${S})`;
        }
      }
      collector = await runCollector();
      // No cooldown: a rule that fired earlier as a side effect of another condition may fire again.
      alerter = h.alerter({ cooldownSeconds: 0, anomaly: false });
    }, 120_000);

    afterAll(async () => {
      await collector?.stop();
      await h?.close();
      await Promise.all([standby?.remove(), primary?.remove()]);
    });

    function runCollector(): Promise<RunningCollector> {
      return startCollector({
        datastore: h.datastore,
        logger: silentAlerterLogger,
        secretKey: h.secretKey,
        probes: Object.keys(PROBE_SECONDS).map((name) => findProbe(name) as ProbeDefinition),
        backoffInitialSeconds: 1,
        backoffMaxSeconds: 2,
        topologySeconds: 0,
      });
    }

    /** A server-scope override of a rule for a connection (its default severity). */
    async function override(rule: string, connectionId: number, operator: string, threshold: number) {
      const { id, severity } = rules.get(rule) as { id: number; severity: string };
      await h.datastore.sql`
      insert into alert_thresholds (rule_id, scope, scope_id, operator, threshold, severity)
      values (${id}, 'server', ${connectionId}, ${operator}, ${threshold}, ${severity})
      on conflict (rule_id, scope, scope_id, database_name)
      do update set operator = excluded.operator, threshold = excluded.threshold`;
    }

    async function restore(connectionId: number, ...names: string[]) {
      const ids = names.map((name) => rules.get(name)?.id as number);
      await h.datastore.sql`
      delete from alert_thresholds where scope = 'server' and scope_id = ${connectionId} and rule_id = any(${ids}::int[])`;
    }

    async function evaluateNow(): Promise<void> {
      const now = Math.max(Date.now(), evaluatedUpTo + 1);
      h.clock.set(new Date(now));
      await alerter.evaluate();
      evaluatedUpTo = now;
    }

    /**
     * Evaluates as of each collection of `probe` on the connection not evaluated yet, as an alerter
     * running right after each collection would. Counter rules compare the two latest samples, so
     * evaluating at the current time could miss the one sample pair that holds the increase.
     */
    async function evaluateCollections(probe: string, connectionId: number): Promise<void> {
      const times = await h.datastore.sql.unsafe<{ ms: number }[]>(
        `select distinct round(extract(epoch from collected_at) * 1000)::float8 as ms from metrics.${probe}
       where connection_id = $1 and collected_at > to_timestamp($2::float8 / 1000) order by 1`,
        [connectionId, evaluatedUpTo],
      );
      for (const { ms } of times) {
        h.clock.set(new Date(ms));
        await alerter.evaluate();
        evaluatedUpTo = ms;
      }
    }

    interface Watch {
      /** Evaluate at each collection of this probe instead of now. */
      collections?: string;
    }

    async function alertsOf(connectionId: number, names: readonly string[], after = 0): Promise<AlertRow[]> {
      return h.datastore.sql<AlertRow[]>`
      select a.id::int as id, r.name as rule, a.status, a.database_name, a.object_name, a.metric_value, a.severity
      from alerts a join alert_rules r on r.id = a.rule_id
      where a.connection_id = ${connectionId} and r.name = any(${names as string[]})
        and a.triggered_at > to_timestamp(${after}::float8 / 1000)
      order by a.id`;
    }

    /** Evaluates (per `watch`) until `done` answers something; fails with what `explain` says. */
    async function evaluateUntil<T>(
      connectionId: number,
      watch: Watch,
      done: () => Promise<T | undefined>,
      explain: () => Promise<string>,
      ms?: number,
    ): Promise<T> {
      return pollUntil(
        async () => {
          if (watch.collections) {
            await evaluateCollections(watch.collections, connectionId);
          } else {
            await evaluateNow();
          }
          return done();
        },
        explain,
        ms,
      );
    }

    /**
     * Waits until none of the rules has an open alert on the connection (a side effect of an earlier
     * condition); answers the time after which alerts count as raised by what follows.
     */
    async function quiet(connectionId: number, ...names: string[]): Promise<number> {
      await evaluateUntil(
        connectionId,
        {},
        async () =>
          (await alertsOf(connectionId, names)).some((a) => a.status !== "cleared") ? undefined : true,
        async () => `still open: ${JSON.stringify(await alertsOf(connectionId, names))}`,
      );
      return evaluatedUpTo;
    }

    /**
     * Evaluates until each rule has active alerts raised after `since` (`perRule` of them, one by
     * default); answers them per rule.
     */
    async function raised(
      connectionId: number,
      since: number,
      names: readonly string[],
      watch: Watch & { perRule?: number } = {},
    ): Promise<Record<string, AlertRow[]>> {
      return evaluateUntil(
        connectionId,
        watch,
        async () => {
          // Raised since `since`, whatever their status now: on a loaded machine a short condition
          // (a burst of temporary files) may be raised and cleared again before this poll sees it.
          const raisedSince = await alertsOf(connectionId, names, since);
          const byRule = Object.fromEntries(
            names.map((name) => [name, raisedSince.filter((a) => a.rule === name)]),
          );
          const enough = Object.values(byRule).every((found) => found.length >= (watch.perRule ?? 1));
          return enough ? byRule : undefined;
        },
        async () =>
          `not raised: ${names.join(", ")}; alerts: ${JSON.stringify(await alertsOf(connectionId, names, since))}`,
      );
    }

    /** Evaluates until every one of the alerts is cleared; the rules count as covered. */
    async function cleared(
      connectionId: number,
      alerts: AlertRow[],
      watch: Watch = {},
      ms?: number,
    ): Promise<void> {
      const ids = alerts.map((alert) => alert.id);
      const names = [...new Set(alerts.map((alert) => alert.rule))];
      const current = async () =>
        (await alertsOf(connectionId, names)).filter((alert) => ids.includes(alert.id));
      await evaluateUntil(
        connectionId,
        watch,
        async () => ((await current()).every((alert) => alert.status === "cleared") ? true : undefined),
        async () => `not cleared: ${JSON.stringify(await current())}`,
        ms,
      );
      for (const name of names) {
        covered.add(name);
      }
    }

    /** The alerts of every rule, in the order of the rules. */
    const flat = (byRule: Record<string, AlertRow[]>) => Object.values(byRule).flat();

    it("max_connections above 500 (the standby's own setting), cleared by a restart with 30", async () => {
      // Started with 600.
      const alerts = await raised(S, 0, ["high_max_connections"]);
      expect(alerts.high_max_connections?.[0]).toMatchObject({ metric_value: 600, severity: "warning" });
      await exec(standby.url, "alter system set max_connections = 30");
      await standby.restart();
      await cleared(S, flat(alerts));
    });

    it("client sessions past 80 % of max_connections, and many sessions", async () => {
      const since = await quiet(P, "connection_utilization", "session_count_anomaly");
      // 200 sessions do not fit in the 20 connections that make utilization measurable here.
      await override("session_count_anomaly", P, ">", 10);
      const sessions = await openSessions(app, 17);
      try {
        const alerts = await raised(P, since, ["connection_utilization", "session_count_anomaly"]);
        expect(alerts.connection_utilization?.[0]?.metric_value).toBeGreaterThanOrEqual(85);
        expect(alerts.session_count_anomaly?.[0]?.metric_value).toBeGreaterThanOrEqual(17);
        await closeSessions(sessions);
        await cleared(P, flat(alerts));
      } finally {
        await closeSessions(sessions);
        await restore(P, "session_count_anomaly");
      }
    });

    it("a long query, a long transaction and a session idle in it", async () => {
      const names = ["long_running_queries", "long_running_transaction", "idle_in_transaction"];
      const since = await quiet(P, ...names);
      // Seconds instead of 10 minutes, an hour and 5 minutes.
      for (const name of names) {
        await override(name, P, ">", 2);
      }
      const [sleeper, idler] = (await openSessions(app, 2)) as [postgres.Sql, postgres.Sql];
      const release = deferred();
      try {
        const sleeping = sleeper.unsafe("select pg_sleep(300)");
        sleeping.catch(() => {});
        const idle = idler.begin(async (tx) => {
          await tx`select pg_current_xact_id()`;
          await release.promise;
        });
        const alerts = await raised(P, since, names);
        expect(alerts.long_running_queries?.[0]?.metric_value).toBeGreaterThan(2);
        sleeping.cancel();
        release.resolve();
        await idle;
        await cleared(P, flat(alerts));
      } finally {
        release.resolve();
        await closeSessions([sleeper, idler]);
        await restore(P, ...names);
      }
    });

    it("six sessions waiting for a lock another one holds", async () => {
      const since = await quiet(P, "blocked_queries", "lock_wait_time");
      // Seconds instead of 30 s.
      await override("lock_wait_time", P, ">", 2);
      const [holder, ...waiters] = (await openSessions(app, 7)) as [postgres.Sql, ...postgres.Sql[]];
      const release = deferred();
      const locked = deferred();
      try {
        const holding = holder.begin(async (tx) => {
          await tx`lock table accounts in access exclusive mode`;
          locked.resolve();
          await release.promise;
        });
        await locked.promise;
        const waiting = waiters.map((waiter) => waiter`select count(*) from accounts`.execute());
        const alerts = await raised(P, since, ["blocked_queries", "lock_wait_time"]);
        expect(alerts.blocked_queries?.[0]?.metric_value).toBe(6);
        release.resolve();
        await holding;
        await Promise.all(waiting);
        await cleared(P, flat(alerts));
      } finally {
        release.resolve();
        await closeSessions([holder, ...waiters]);
        await restore(P, "lock_wait_time");
      }
    });

    it("a session blocked by another's lock, seen by the activity sampler every second", async () => {
      const since = await quiet(P, "session_blocked_duration");
      const [holder, waiter] = (await openSessions(app, 2)) as [postgres.Sql, postgres.Sql];
      const release = deferred();
      const locked = deferred();
      try {
        let holderPid = 0;
        const holding = holder.begin(async (tx) => {
          const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
          holderPid = row?.pid ?? 0;
          await tx`update accounts set balance = balance + 1 where id = 1`;
          locked.resolve();
          await release.promise;
        });
        await locked.promise;
        const waiting = waiter`update accounts set balance = balance - 1 where id = 1`.execute();
        // Sampled blocked by this holder first: a block that ended a moment ago (the test before) is
        // what the latest samples say until this one's are stored.
        await pollUntil(
          async () =>
            (
              await h.datastore.sql`select 1 from metrics.activity_samples
                where connection_id = ${P} and ${holderPid} = any(blocking_pids) limit 1`
            )[0],
          async () => "the waiter was not sampled blocked by the holder",
        );
        // Seconds instead of 30 s.
        await override("session_blocked_duration", P, ">", 2);
        const alerts = await raised(P, since, ["session_blocked_duration"]);
        expect(alerts.session_blocked_duration?.[0]?.metric_value).toBeGreaterThan(2);
        // The samples the alert was raised from: the waiter, blocked by the holder's pid.
        const [blocked] = await h.datastore.sql<{ blocking_pids: number[]; database_name: string }[]>`
          select blocking_pids, database_name from metrics.activity_samples
          where connection_id = ${P} and cardinality(blocking_pids) > 0 order by sampled_at desc limit 1`;
        expect(blocked).toEqual({ blocking_pids: [holderPid], database_name: "app" });
        release.resolve();
        await holding;
        await waiting;
        // The latest blocked sample stays current for three sampling intervals, an interval being read
        // from the ticks of the last complete minute: a slow minute lengthens it past the usual 20 s.
        await cleared(P, flat(alerts), {}, 60_000);
      } finally {
        release.resolve();
        await closeSessions([holder, waiter]);
        await restore(P, "session_blocked_duration");
      }
    });

    it("running sessions raise the database load, averaged over five minutes, against the host's vCPUs", {
      timeout: 240_000,
    }, async () => {
      // Five minutes of more sessions than this machine's processors would take five minutes, and
      // the tests before leave sessions in the five-minute average: the current value is read first
      // (an alert at >= 0), then the ratio is set a quarter above it. Enough sessions run that one
      // closed minute of them, averaged over five, passes it whatever that background is. They sleep in
      // their statements: load counts active sessions whatever they wait on, and spinning ones
      // would take this 2-core machine from the other tests.
      // The load needs a closed minute of sampling (the minutes are stored as they close).
      await pollUntil(
        async () => {
          const [row] = await h.datastore.sql`
            select 1 from metrics.activity_ticks where connection_id = ${P} limit 1`;
          return row;
        },
        async () => "no minute of activity sampling stored",
        90_000,
      );
      await override("database_load_above_vcpus", P, ">", 1000);
      const before = await quiet(P, "database_load_above_vcpus");
      await override("database_load_above_vcpus", P, ">=", 0);
      const current = await raised(P, before, ["database_load_above_vcpus"]);
      const background = current.database_load_above_vcpus?.[0]?.metric_value ?? 0;
      await override("database_load_above_vcpus", P, ">", 1000);
      await cleared(P, flat(current));
      await override("database_load_above_vcpus", P, ">", background + 0.25);
      const since = await quiet(P, "database_load_above_vcpus");
      const [cpu] = await h.datastore.sql<{ vcpus: number }[]>`
        select logical_processor::int as vcpus from metrics.pg_sys_cpu_info
        where connection_id = ${P} order by collected_at desc limit 1`;
      const vcpus = cpu?.vcpus ?? 1;
      const workers = await openSessions(app, Math.ceil((background + 1.5) * vcpus) + 1);
      let stop = false;
      const spin = workers.map(async (worker) => {
        while (!stop) {
          await worker`select pg_sleep(0.5)`;
        }
      });
      try {
        const fired = await pollUntil(
          async () => {
            await evaluateNow();
            const [alert] = await alertsOf(P, ["database_load_above_vcpus"], since);
            return alert;
          },
          async () => {
            const minutes = await h.datastore.sql`
                select t.minute, t.ticks, (select sum(samples) from metrics.activity_minutes m
                  where m.connection_id = t.connection_id and m.minute = t.minute) as samples
                from metrics.activity_ticks t where t.connection_id = ${P} order by t.minute desc limit 6`;
            return `not raised; minutes: ${JSON.stringify(minutes)}`;
          },
          180_000,
        );
        expect(fired.metric_value).toBeGreaterThan(background + 0.25);
      } finally {
        stop = true;
        await Promise.all(spin);
        await closeSessions(workers);
      }
      // The load's average takes five minutes to come down: above anything it can be instead.
      await override("database_load_above_vcpus", P, ">", 1000);
      await cleared(P, await alertsOf(P, ["database_load_above_vcpus"], since));
      await restore(P, "database_load_above_vcpus");
    });

    it("a deadlock between two sessions", async () => {
      const since = await quiet(P, "deadlocks_detected");
      const [a, b] = (await openSessions(app, 2)) as [postgres.Sql, postgres.Sql];
      try {
        const firstLocked = deferred();
        const secondLocked = deferred();
        const crossing = (session: postgres.Sql, mine: number, theirs: number) =>
          session.begin(async (tx) => {
            await tx`update accounts set balance = balance + 1 where id = ${mine}`;
            (mine === 1 ? firstLocked : secondLocked).resolve();
            await (mine === 1 ? secondLocked : firstLocked).promise;
            await tx`update accounts set balance = balance - 1 where id = ${theirs}`;
          });
        const outcomes = await Promise.allSettled([crossing(a, 1, 2), crossing(b, 2, 1)]);
        expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
        // Ending the sessions reports their statistics at once (an idle one may wait 10 s).
        await closeSessions([a, b]);
        const watch = { collections: "pg_stat_database" };
        const alerts = await raised(P, since, ["deadlocks_detected"], watch);
        expect(alerts.deadlocks_detected?.map((alert) => [alert.database_name, alert.metric_value])).toEqual([
          ["app", 1],
        ]);
        await cleared(P, flat(alerts), watch);
      } finally {
        await closeSessions([a, b]);
      }
    });

    it("dead tuples in a table autovacuum may not touch, until it may", async () => {
      const names = ["table_bloat_ratio", "dead_tuple_ratio", "autovacuum_not_running"];
      const since = await quiet(P, ...names);
      // Overdue as soon as a later collection still finds the table past its trigger, not after an hour.
      await override("autovacuum_not_running", P, ">", 0);
      await exec(
        app,
        "create table orders (id integer primary key, status text not null) with (autovacuum_enabled = false)",
        "insert into orders select g, 'new' from generate_series(1, 3000) g",
        // Every row updated once: 3,000 live and 3,000 dead tuples.
        "update orders set status = 'shipped'",
      );
      const alerts = await raised(P, since, names);
      expect(flat(alerts).map((alert) => [alert.rule, alert.database_name, alert.object_name])).toEqual(
        names.map((name) => [name, "app", "public.orders"]),
      );
      expect(alerts.dead_tuple_ratio?.[0]?.metric_value).toBe(50);
      // Never vacuumed: hours since it first crossed its trigger, not since the epoch.
      expect(alerts.autovacuum_not_running?.[0]?.metric_value).toBeGreaterThan(0);
      expect(alerts.autovacuum_not_running?.[0]?.metric_value).toBeLessThan(1);
      await exec(app, "alter table orders set (autovacuum_enabled = true)");
      await cleared(P, flat(alerts));
      const [vacuumed] = await exec(
        app,
        "select n_dead_tup::int as dead, last_autovacuum is not null as autovacuumed from pg_stat_user_tables where relname = 'orders'",
      );
      expect(vacuumed).toEqual({ dead: 0, autovacuumed: true });
      await restore(P, "autovacuum_not_running");
    });

    it("requested checkpoints", async () => {
      const since = await quiet(P, "checkpoint_warning");
      // More than 50 must fall between two collections, as they would within the default ten minutes:
      // collection pauses (an hour's interval for this server) while they are requested.
      const sql = h.datastore.sql;
      const pausedAt = new Date().toISOString();
      await sql`insert into probe_configs (name, collection_interval_seconds, retention_days, scope, scope_id)
        values ('pg_stat_checkpointer', 3600, 7, 'server', ${P})`;
      try {
        // Paused once three one-second intervals passed without a collection since the change.
        await pollUntil(
          async () => {
            const [quietFor] = await sql<{ seconds: number }[]>`
              select extract(epoch from now() - greatest(max(collected_at), ${pausedAt}::timestamptz))::float8 as seconds
              from metrics.pg_stat_checkpointer where connection_id = ${P}`;
            return (quietFor?.seconds ?? 0) > 3 ? true : undefined;
          },
          async () => "collection did not pause",
        );
        await exec(primary.url, ...Array.from({ length: 60 }, () => "checkpoint"));
      } finally {
        await sql`delete from probe_configs where name = 'pg_stat_checkpointer' and scope = 'server' and scope_id = ${P}`;
      }
      const watch = { collections: "pg_stat_checkpointer" };
      const alerts = await raised(P, since, ["checkpoint_warning"], watch);
      expect(alerts.checkpoint_warning?.[0]?.metric_value).toBeGreaterThanOrEqual(60);
      await cleared(P, flat(alerts), watch);
    });

    it("temporary files of a hash join with little work_mem", async () => {
      const since = await quiet(P, "temp_files_created");
      // 200,000 rows hashed in 64 kB: hundreds of batches, two files each.
      await exec(
        app,
        "set work_mem = '64kB'",
        "set enable_mergejoin = off",
        "set max_parallel_workers_per_gather = 0",
        "select count(*) from big a join big b using (id)",
      );
      const watch = { collections: "pg_stat_database" };
      const alerts = await raised(P, since, ["temp_files_created"], watch);
      expect(alerts.temp_files_created?.map((alert) => alert.database_name)).toEqual(["app"]);
      expect(alerts.temp_files_created?.[0]?.metric_value).toBeGreaterThan(100);
      await cleared(P, flat(alerts), watch);
    });

    it("reads that miss the buffer cache", async () => {
      const since = await quiet(P, "cache_hit_ratio_low");
      // Sequential scans of a table larger than a quarter of shared_buffers go through a small ring
      // of buffers: nearly every block is read. Two scans in one statement: 11,766 blocks reported at
      // once (the rule looks at intervals of 10,000 blocks or more).
      await exec(app, "select (select count(*) from big) + (select count(*) from big)");
      const watch = { collections: "pg_stat_database" };
      const alerts = await raised(P, since, ["cache_hit_ratio_low"], watch);
      expect(alerts.cache_hit_ratio_low?.map((alert) => alert.database_name)).toEqual(["app"]);
      expect(alerts.cache_hit_ratio_low?.[0]?.metric_value).toBeLessThan(80);
      await cleared(P, flat(alerts), watch);
    });

    it("WAL archiving that fails", async () => {
      const since = await quiet(P, "wal_archive_failed");
      const watch = { collections: "pg_stat_wal" };
      try {
        await exec(primary.url, "alter system set archive_command = 'false'", "select pg_reload_conf()");
        // A completed segment the archiver must archive (it tries three times, then waits a minute).
        await exec(app, "insert into wal_filler values (1)", "select pg_switch_wal()");
        const alerts = await raised(P, since, ["wal_archive_failed"], watch);
        expect(alerts.wal_archive_failed?.[0]?.metric_value).toBeGreaterThan(0);
        await exec(primary.url, "alter system set archive_command = 'true'", "select pg_reload_conf()");
        await cleared(P, flat(alerts), watch);
      } finally {
        await exec(primary.url, "alter system set archive_command = 'true'", "select pg_reload_conf()");
      }
    });

    it("an unused replication slot that holds WAL back", async () => {
      const retention = ["replication_slot_retention_warn", "replication_slot_retention_high"];
      const since = await quiet(P, "replication_slot_inactive", ...retention);
      try {
        await exec(primary.url, "select pg_create_physical_replication_slot('dbmon_held', true)");
        // Four segment switches after writes: at least three whole 16 MiB segments behind the slot.
        for (let i = 0; i < 4; i++) {
          await exec(app, "insert into wal_filler values (1)", "select pg_switch_wal()");
        }
        // 16 and 32 MiB instead of 1 and 10 GiB: gigabytes of WAL would fill the test machine's disk.
        // Lowered only once a collection saw all the WAL, so the rule cannot fire on a sample taken
        // midway (a slow machine's collector did, between the third and fourth switch).
        await pollUntil(
          async () => {
            const [held] = await h.datastore.sql<{ bytes: number | null }[]>`
              select max(retained_bytes)::float8 as bytes from metrics.pg_replication_slots
              where connection_id = ${P} and slot_name = 'dbmon_held'`;
            return (held?.bytes ?? 0) >= 48 * MIB ? true : undefined;
          },
          async () => "no collection saw the slot's retained WAL",
        );
        await override("replication_slot_retention_warn", P, ">=", 16 * MIB);
        await override("replication_slot_retention_high", P, ">=", 32 * MIB);
        const alerts = await raised(P, since, ["replication_slot_inactive", ...retention]);
        expect(alerts.replication_slot_inactive?.map((alert) => alert.object_name)).toEqual(["dbmon_held"]);
        expect(alerts.replication_slot_retention_high?.[0]?.metric_value).toBeGreaterThanOrEqual(48 * MIB);
        expect(alerts.replication_slot_retention_high?.[0]?.severity).toBe("critical");
        // Moved up to the current WAL position: nothing retained, still unused.
        await exec(primary.url, "select pg_replication_slot_advance('dbmon_held', pg_current_wal_lsn())");
        await cleared(P, [
          ...(alerts.replication_slot_retention_warn ?? []),
          ...(alerts.replication_slot_retention_high ?? []),
        ]);
        expect(
          (await alertsOf(P, ["replication_slot_inactive"], since)).map((alert) => alert.status),
        ).toEqual(["active"]);
        await exec(primary.url, "select pg_drop_replication_slot('dbmon_held')");
        await cleared(P, alerts.replication_slot_inactive ?? []);
      } finally {
        await exec(
          primary.url,
          "select pg_drop_replication_slot(slot_name) from pg_replication_slots where slot_name = 'dbmon_held'",
        );
        await restore(P, ...retention);
      }
    });

    it("a standby whose replay is paused while the primary writes", async () => {
      const since = await quiet(P, "replication_lag_bytes");
      // 1 MiB instead of 100 MiB: the same lag, a hundredth of the writing.
      await override("replication_lag_bytes", P, ">", MIB);
      try {
        await exec(standby.url, "select pg_wal_replay_pause()");
        await exec(app, "insert into wal_filler select g from generate_series(1, 50000) g");
        const alerts = await raised(P, since, ["replication_lag_bytes"]);
        expect(alerts.replication_lag_bytes?.[0]?.metric_value).toBeGreaterThan(MIB);
        await exec(standby.url, "select pg_wal_replay_resume()");
        await cleared(P, flat(alerts));
      } finally {
        await exec(standby.url, "select pg_wal_replay_resume()");
        await restore(P, "replication_lag_bytes");
      }
    });

    it("a standby without its WAL receiver", async () => {
      const since = await quiet(S, "replication_standby_disconnected");
      const [{ primary_conninfo: conninfo }] = (await exec(standby.url, "show primary_conninfo")) as [
        { primary_conninfo: string },
      ];
      const reconnect = () =>
        exec(
          standby.url,
          `alter system set primary_conninfo = '${conninfo.replaceAll("'", "''")}'`,
          "select pg_reload_conf()",
        );
      try {
        // No upstream to stream from: the standby stops its WAL receiver.
        await exec(standby.url, "alter system set primary_conninfo = ''", "select pg_reload_conf()");
        const alerts = await raised(S, since, ["replication_standby_disconnected"]);
        expect(alerts.replication_standby_disconnected?.[0]?.severity).toBe("critical");
        await reconnect();
        await cleared(S, flat(alerts));
      } finally {
        await reconnect();
      }
    });

    it("a subscription without its worker, until it is enabled", async () => {
      const since = await quiet(P, "subscription_worker_down");
      try {
        // Created without connecting: disabled, no slot on the publisher (the primary's app database).
        await exec(
          primary.url,
          `create subscription dbmon_sub connection 'host=127.0.0.1 port=${primary.port} user=postgres dbname=app'
           publication dbmon_pub with (connect = false)`,
        );
        const alerts = await raised(P, since, ["subscription_worker_down"]);
        await exec(app, "select pg_create_logical_replication_slot('dbmon_sub', 'pgoutput')");
        await exec(primary.url, "alter subscription dbmon_sub enable");
        await cleared(P, flat(alerts));
      } finally {
        // Before it was enabled, its slot does not exist yet: forget the slot to drop it.
        await exec(primary.url, "drop subscription if exists dbmon_sub").catch(() =>
          exec(
            primary.url,
            "alter subscription dbmon_sub set (slot_name = none)",
            "drop subscription dbmon_sub",
          ),
        );
      }
    });

    it("statements that take over a second on average", async () => {
      const since = await quiet(P, "slow_query_count");
      await exec(app, "select pg_stat_statements_reset()");
      const sessions = await openSessions(app, 11);
      try {
        // Eleven distinct statements (a different number of columns each), run once each at the same time.
        await Promise.all(
          sessions.map((session, index) => session.unsafe(`select pg_sleep(1.1)${", 0".repeat(index)}`)),
        );
        const alerts = await raised(P, since, ["slow_query_count"]);
        expect(alerts.slow_query_count?.map((alert) => [alert.database_name, alert.metric_value])).toEqual([
          ["app", 11],
        ]);
        await exec(app, "select pg_stat_statements_reset()");
        await cleared(P, flat(alerts));
      } finally {
        await closeSessions(sessions);
      }
    });

    it("Spock exceptions and conflict resolutions (stand-in tables)", async () => {
      const names = [
        "spock_recent_exceptions_present",
        "spock_recent_exceptions_high",
        "spock_recent_resolutions_present",
        "spock_recent_resolutions_high",
      ];
      const since = await quiet(P, ...names);
      await exec(
        app,
        `insert into spock.exception_log (retry_errored_at, table_schema, table_name, operation, error_message)
         select now(), 'public', 'accounts', 'UPDATE', 'duplicate key value' from generate_series(1, 10)`,
        `insert into spock.resolutions (node_name, log_time, relname, conflict_type, conflict_resolution)
         select 'n2', now(), 'public.accounts', 'update_update', 'apply_remote' from generate_series(1, 25)`,
      );
      const alerts = await raised(P, since, names);
      expect(flat(alerts).map((alert) => [alert.rule, alert.database_name, alert.metric_value])).toEqual([
        ["spock_recent_exceptions_present", "app", 10],
        ["spock_recent_exceptions_high", "app", 10],
        ["spock_recent_resolutions_present", "app", 25],
        ["spock_recent_resolutions_high", "app", 25],
      ]);
      await exec(app, "delete from spock.exception_log", "delete from spock.resolutions");
      await cleared(P, flat(alerts));
    });

    it("transaction IDs three quarters of the way to a forced anti-wraparound vacuum", async () => {
      const since = await quiet(P, "transaction_wraparound");
      const databases = ["app", "postgres", "template1"];
      const freezeAll = () =>
        Promise.all(databases.map((database) => exec(primary.urlOf(database), "vacuum (freeze)")));
      try {
        await freezeAll();
        // 80,000 transactions: every database's datfrozenxid is 80 % of autovacuum_freeze_max_age old.
        await exec(
          primary.url,
          "do $$ begin for i in 1..80000 loop perform pg_current_xact_id(); commit; end loop; end $$",
        );
        const alerts = await raised(P, since, ["transaction_wraparound"], { perRule: databases.length });
        const all = alerts.transaction_wraparound ?? [];
        expect(all.map((alert) => [alert.database_name, alert.severity]).sort()).toEqual(
          databases.map((database) => [database, "critical"]),
        );
        // Raised at the first collection past the rule's 75 %, which may come while the
        // transactions are still being used up (two runs saw 77.7 and 79.4), so the value lies
        // between the threshold and the 80 % reached.
        for (const alert of all) {
          expect(alert.metric_value).toBeGreaterThan(75);
        }
        await freezeAll();
        await cleared(P, all);
      } finally {
        await freezeAll();
      }
    });

    it("the host's disks, CPU, memory and load", async () => {
      const names = [
        "disk_usage_percent",
        "disk_usage_critical",
        "cpu_usage_high",
        "memory_usage_high",
        "load_average_high",
      ];
      // The test machine's use is whatever it is, and a busy machine may exceed the defaults: the
      // overrides put each threshold above anything the value can be, under the collected value, then
      // above it again.
      const unreachable = async () => {
        for (const name of names) {
          await override(name, P, ">", name === "load_average_high" ? 1_000_000 : 100);
        }
      };
      try {
        await unreachable();
        const since = await quiet(P, ...names);
        for (const name of names) {
          await override(name, P, ">=", 0);
        }
        const alerts = await raised(P, since, names);
        for (const alert of flat(alerts)) {
          expect(alert.metric_value).toBeGreaterThanOrEqual(0);
        }
        expect(alerts.disk_usage_percent?.length).toBe(alerts.disk_usage_critical?.length);
        await unreachable();
        await cleared(P, flat(alerts));
      } finally {
        await restore(P, ...names);
      }
    });

    it("a stopped server raises a connection alert (not stale metrics) until it is back", async () => {
      const since = await quiet(S, "metric_staleness");
      const connectionAlert = async () => {
        const [alert] = await h.datastore.sql<{ id: number; status: string; title: string }[]>`
        select id::int as id, status, title from alerts
        where alert_type = 'connection' and connection_id = ${S} and triggered_at > to_timestamp(${since}::float8 / 1000)
        order by id desc limit 1`;
        return alert;
      };
      await standby.stop();
      try {
        const alert = await evaluateUntil(
          S,
          {},
          async () => ((await connectionAlert())?.status === "active" ? await connectionAlert() : undefined),
          async () => `no connection alert: ${JSON.stringify(await connectionAlert())}`,
        );
        expect(alert.title).toBe("Connection error: standby");
        expect(await alertsOf(S, ["metric_staleness"], since)).toEqual([]);
      } finally {
        await standby.start();
      }
      await evaluateUntil(
        S,
        {},
        async () => ((await connectionAlert())?.status === "cleared" ? true : undefined),
        async () => `connection alert not cleared: ${JSON.stringify(await connectionAlert())}`,
      );
    });

    it("a collector that stops collecting leaves stale metrics", async () => {
      const since = await quiet(P, "metric_staleness");
      const sinceStandby = await quiet(S, "metric_staleness");
      await collector?.stop();
      collector = undefined;
      // Three intervals of one second without a run.
      const alerts = await raised(P, since, ["metric_staleness"]);
      const standbyAlerts = await raised(S, sinceStandby, ["metric_staleness"]);
      expect(alerts.metric_staleness?.[0]?.metric_value).toBeGreaterThan(3);
      collector = await runCollector();
      await cleared(P, flat(alerts));
      await cleared(S, flat(standbyAlerts));
    });

    it("covered every built-in rule", () => {
      expect(builtInRules.map((rule) => rule.name).filter((name) => !covered.has(name))).toEqual([]);
    });
  },
);
