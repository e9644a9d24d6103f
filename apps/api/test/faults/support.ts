import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encryptSecret, loadSecretKey, migrateDatastore, type SecretKey } from "@dbmon/datastore";
import { startPrimary, type TestServer, waitFor } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { type DbmonProcess, startDbmon, stopAll } from "../dbmon-processes.js";

/** Conditions of processes on a loaded 2-core machine: generous, polled twice a second. */
export const waitLong = <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000) =>
  waitFor(what, check, timeoutMs, 500);

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const SECRET = "fault-suite-secret-passphrase";
const READY: Record<string, string> = {
  serve: "dbmon API listening",
  collector: "dbmon collector running",
  alerter: "dbmon alerter running",
};

/** Webhook bodies as the receiver got them. */
export interface Delivery {
  event: string;
  alert_id: number;
}

/**
 * A datastore of the fault suite's own (a private PostgreSQL, so that it can be stopped, started and
 * have its sessions terminated), dbmon processes on it, and a webhook receiver for their alerts.
 */
export interface Fleet {
  datastore: TestServer;
  /** The test's own session on the datastore (reopened after a restart by `reconnect`). */
  sql: postgres.Sql;
  reconnect(): Promise<void>;
  secretKey: SecretKey;
  processes: DbmonProcess[];
  deliveries: Delivery[];
  webhookUrl: string;
  env: Record<string, string>;
  start(command: "serve" | "collector" | "alerter", extra?: Record<string, string>): Promise<DbmonProcess>;
  /**
   * A monitored connection, as the API stores it (the password encrypted with the fleet's key), at a
   * loopback address of its own (`hostaddr`): a server of its own to dbmon, on a server started with
   * `startLoopbackPrimary` (the suite is about processes and faults, not connections sharing a server).
   */
  addConnection(name: string, port: number, database?: string): Promise<number>;
  /** Every probe off but these, at this interval (seconds). */
  onlyProbes(names: readonly string[], intervalSeconds: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFleet(extraEnv: Record<string, string> = {}): Promise<Fleet> {
  const [datastore, dataDir] = await Promise.all([
    startPrimary("replica", { max_connections: 100 }),
    mkdtemp(join(tmpdir(), "dbmon-faults-")),
  ]);
  await migrateDatastore(datastore.url);
  const secretKey = await loadSecretKey({ secret: SECRET, dataDir });
  const deliveries: Delivery[] = [];
  const receiver: Server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      deliveries.push(JSON.parse(body) as Delivery);
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const env = {
    DBMON_DATABASE_URL: datastore.url,
    DBMON_DATA_DIR: dataDir,
    DBMON_SECRET: SECRET,
    DBMON_LOG_LEVEL: "info",
    DBMON_PORT: "0",
    DBMON_COLLECTOR: "false",
    DBMON_ALERTER: "false",
    DBMON_MONITOR_SELF: "false",
    DBMON_ALLOWED_HOSTS: "127.0.0.0/8",
    DBMON_NOTIFICATION_ALLOWED_HOSTS: "127.0.0.1",
    DBMON_COLLECTOR_LEASE_SECONDS: "4",
    DBMON_EVALUATION_INTERVAL_SECONDS: "2",
    ...extraEnv,
  };
  const processes: DbmonProcess[] = [];
  /** Connections added, for each one's loopback address. */
  let added = 0;
  const fleet: Fleet = {
    datastore,
    sql: postgres(datastore.url, { max: 2, onnotice: () => {} }),
    async reconnect() {
      await fleet.sql.end({ timeout: 1 }).catch(() => {});
      fleet.sql = postgres(datastore.url, { max: 2, onnotice: () => {} });
    },
    secretKey,
    processes,
    deliveries,
    webhookUrl,
    env,
    async start(command, extra = {}) {
      const started = startDbmon(command, { ...env, ...extra });
      processes.push(started);
      await started.logged(READY[command] ?? "");
      return started;
    },
    async addConnection(name, port, database = "postgres") {
      const [row] = await fleet.sql<{ id: number }[]>`
        insert into connections (name, host, hostaddr, port, database_name, username, password_encrypted,
          sslmode, owner_username, is_monitored)
        values (${name}, '127.0.0.1', ${`127.0.2.${++added}`}, ${port}, ${database}, 'postgres',
          ${encryptSecret(secretKey, "trust")},
          'disable', 'admin', true)
        returning id`;
      return row?.id ?? 0;
    },
    async onlyProbes(names, intervalSeconds) {
      await fleet.sql`
        update probe_configs set is_enabled = name = any(${names as string[]}::text[]),
          collection_interval_seconds = ${intervalSeconds}`;
    },
    async close() {
      await stopAll(processes);
      await new Promise((resolve) => receiver.close(resolve));
      await fleet.sql.end({ timeout: 1 }).catch(() => {});
      await datastore.remove();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
  await fleet.sql`
    insert into notification_channels (channel_type, name, endpoint_url, auth_type, is_estate_default)
    values ('webhook', 'fault receiver', ${webhookUrl}, 'none', true)`;
  return fleet;
}

/** Fails when a process has exited or logged a fatal error (an unhandled rejection ends the process). */
export function expectAlive(processes: readonly DbmonProcess[]): void {
  for (const process of processes) {
    if (process.child.exitCode !== null || process.child.signalCode !== null) {
      throw new Error(
        `dbmon ${process.command} exited (${process.child.exitCode ?? process.child.signalCode})\n${process.output()}`,
      );
    }
    const fatal = process.logs.filter((line) => Number(line.level) >= 60);
    if (fatal.length > 0) {
      throw new Error(`dbmon ${process.command} logged ${JSON.stringify(fatal)}`);
    }
  }
}

/** Each (alert, event) was delivered exactly once. */
export function duplicateDeliveries(deliveries: readonly Delivery[]): string[] {
  const seen = new Map<string, number>();
  for (const delivery of deliveries) {
    const key = `${delivery.event} of alert ${delivery.alert_id}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, count]) => count > 1).map(([key, count]) => `${key}: ${count} times`);
}
