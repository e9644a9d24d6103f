// The monitored side of `pnpm bench fleet`: PostgreSQL 15 clusters of the machine's binaries, each
// holding databases with real tables, and a light load over a rotating few of them.
import { COLLECTOR_APPLICATION_NAME } from "../packages/collector/src/index.js";
import { openDatastore, type Sql } from "../packages/datastore/src/index.js";
import { startPrimary, type TestServer } from "../packages/datastore/src/testing/private-postgres.js";
import { execStatements } from "../packages/datastore/src/testing/statements.js";
import { databaseUrl } from "../packages/datastore/src/testing/urls.js";

/** A pool on a monitored cluster's database (`dbmon` as application_name, unlike the collector's). */
const open = (url: string, maxConnections: number) =>
  openDatastore({ databaseUrl: url, dataDir: "", migrate: false, maxConnections });

/** What every monitored database holds (copied from a template database, which is far quicker). */
export const FLEET_DATABASE_SCHEMA = [
  "create extension if not exists pg_stat_statements",
  `create table accounts (id serial primary key, name text not null, balance numeric(12, 2) not null default 0,
    created_at timestamptz not null default now())`,
  "create index accounts_name on accounts (name)",
  `create table orders (id bigserial primary key, account_id int not null references accounts,
    amount numeric(12, 2) not null, status text not null default 'new', invoice bigint,
    created_at timestamptz not null default now())`,
  "create index orders_account on orders (account_id, created_at)",
  "create index orders_status on orders (status) where status <> 'done'",
  `create table events (id bigint generated always as identity primary key, kind text not null, payload jsonb,
    at timestamptz not null default now())`,
  "create index events_at on events (at)",
  "create sequence invoice_numbers",
  `create function place_order(account int, amount numeric) returns bigint language plpgsql as $$
    declare placed bigint;
    begin
      insert into orders (account_id, amount, invoice) values (account, amount, nextval('invoice_numbers'))
        returning id into placed;
      update accounts set balance = balance - amount where id = account;
      insert into events (kind, payload) values ('order', jsonb_build_object('order', placed, 'account', account));
      return placed;
    end $$`,
  "insert into accounts (name, balance) select 'account ' || g, 1000 + g % 500 from generate_series(1, 2000) g",
  `insert into orders (account_id, amount, status, created_at)
    select 1 + g % 2000, (g % 97) + 0.5, case when g % 10 = 0 then 'new' else 'done' end,
      now() - make_interval(mins => g)
    from generate_series(1, 5000) g`,
  `insert into events (kind, payload, at)
    select 'login', jsonb_build_object('account', 1 + g % 2000), now() - make_interval(secs => g * 7)
    from generate_series(1, 3000) g`,
  "vacuum analyze",
];

/** One request of the load: reads and writes a database's application would make. */
const LOAD = [
  "select a.name, sum(o.amount) from accounts a join orders o on o.account_id = a.id where a.id = $1 group by a.name",
  "select place_order($1, 9.99)",
  "select * from events where at > now() - interval '10 minutes' order by at desc limit 20",
  "update orders set status = 'done' where id = (select id from orders where status = 'new' and account_id = $1 limit 1)",
  "select count(*) from orders where created_at > now() - interval '1 hour'",
  "delete from events where id in (select id from events where kind = 'order' order by id limit 5)",
];

export interface FleetCluster {
  server: TestServer;
  /** The cluster's `postgres` database as its superuser: the setup, and the sessions counted. */
  admin: Sql;
  databases: string[];
}

/** The role every connection of the fleet monitors with, as an operator would set one up. */
export const FLEET_MONITORING_ROLE = "dbmon_monitor";

/**
 * A cluster with `databases` databases named `fleet_<first>`..., each registered as a connection of
 * its own with one monitoring role (member of pg_monitor, allowed into the fleet's databases only):
 * the collector sees one server per cluster and one database per connection.
 */
export async function startFleetCluster(first: number, databases: number): Promise<FleetCluster> {
  const server = await startPrimary("replica", {
    // The collector opens at most 3 sessions per server; the load and the benchmark a few more. The
    // headroom is for a collector that would not share a server's sessions among its connections.
    max_connections: databases * 3 + 30,
    shared_buffers: "32MB",
    shared_preload_libraries: "'pg_stat_statements'",
    max_wal_size: "1GB",
    // The launcher starts a worker in each database once per naptime: at the default minute, ten
    // clusters of a hundred databases fork 17 backends a second, which on a 2-core machine took
    // half its CPU in the kernel (measured 42–51 % system time) and starved the processes measured.
    // A real fleet's servers have cores of their own for that.
    autovacuum_naptime: "10min",
  });
  const { sql: admin } = await open(server.url, 2);
  try {
    await admin.unsafe("create database fleet_template");
    await execStatements(databaseUrl(server.url, "fleet_template"), ...FLEET_DATABASE_SCHEMA);
    await admin.unsafe("alter database fleet_template is_template true");
    for (const database of ["postgres", "template1", "fleet_template"]) {
      await admin.unsafe(`revoke connect on database ${database} from public`);
    }
    await admin.unsafe(`create role ${FLEET_MONITORING_ROLE} login in role pg_monitor`);
    const names: string[] = [];
    for (let index = first; index < first + databases; index += 1) {
      const name = `fleet_${index}`;
      await admin.unsafe(`create database ${name} template fleet_template`);
      await admin.unsafe(`revoke connect on database ${name} from public`);
      await admin.unsafe(`grant connect on database ${name} to ${FLEET_MONITORING_ROLE}`);
      names.push(name);
    }
    return { server, admin, databases: names };
  } catch (error) {
    await admin.end();
    await server.remove();
    throw error;
  }
}

/** Stops a cluster at once and removes its directory. */
export async function removeFleetCluster(cluster: FleetCluster): Promise<void> {
  await cluster.admin.end({ timeout: 1 }).catch(() => {});
  await cluster.server.remove();
}

/** Sessions the collector holds on the clusters now (its application_name), summed. */
export async function collectorSessions(clusters: FleetCluster[]): Promise<number> {
  const counts = await Promise.all(
    clusters.map(
      (cluster) => cluster.admin<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity where application_name = ${COLLECTOR_APPLICATION_NAME}`,
    ),
  );
  return counts.reduce((sum, [row]) => sum + (row?.n ?? 0), 0);
}

/** Sessions the clusters have started so far (`pg_stat_database.sessions`: the collector's and the load's). */
export async function sessionsStarted(clusters: FleetCluster[]): Promise<number> {
  const counts = await Promise.all(
    clusters.map(
      (cluster) => cluster.admin<{ n: number }[]>`
        select coalesce(sum(sessions), 0)::float8 as n from pg_stat_database`,
    ),
  );
  return counts.reduce((sum, [row]) => sum + (row?.n ?? 0), 0);
}

export interface FleetLoad {
  /** Requests answered so far. */
  readonly requests: number;
  readonly failures: number;
  stop(): Promise<void>;
}

/**
 * A light load: `workers` sessions, each running `perSecond` requests a second in one database for
 * `dwellSeconds`, then moving on to the next database of the fleet (so every database sees some
 * writes and reads over a long run, and the load never holds more than `workers` sessions).
 */
export function startFleetLoad(
  clusters: FleetCluster[],
  options: { workers: number; perSecond: number; dwellSeconds: number },
): FleetLoad {
  const targets = clusters.flatMap((cluster) =>
    cluster.databases.map((name) => databaseUrl(cluster.server.url, name)),
  );
  let stopped = false;
  let next = 0;
  const state = { requests: 0, failures: 0 };
  const worker = async (offset: number) => {
    let request = offset;
    while (!stopped) {
      const url = targets[next % targets.length] as string;
      next += 1;
      const opened = await open(url, 1).catch(() => undefined);
      if (!opened) {
        state.failures += 1;
        continue;
      }
      const { sql } = opened;
      try {
        const until = Date.now() + options.dwellSeconds * 1000;
        while (!stopped && Date.now() < until) {
          request += 1;
          const statement = LOAD[request % LOAD.length] as string;
          try {
            await sql.unsafe(statement, statement.includes("$1") ? [1 + (request % 2000)] : []);
            state.requests += 1;
          } catch {
            state.failures += 1;
          }
          await new Promise((done) => setTimeout(done, 1000 / options.perSecond));
        }
      } finally {
        await sql.end({ timeout: 1 });
      }
    }
  };
  const running = Array.from({ length: options.workers }, (_, offset) => worker(offset));
  return {
    get requests() {
      return state.requests;
    },
    get failures() {
      return state.failures;
    },
    async stop() {
      stopped = true;
      await Promise.allSettled(running);
    },
  };
}
