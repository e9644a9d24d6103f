import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Datastore,
  type EmbeddedServer,
  encryptSecret,
  loadSecretKey,
  openDatastore,
  type SecretKey,
  silentLogger,
  startEmbeddedServer,
} from "@dbmon/datastore";
import { createTestDatabase, databaseUrl, type TestDatabase } from "@dbmon/datastore/testing";
import postgres from "postgres";
import type { CollectorLogger } from "../src/index.js";

/** The machine's PostgreSQL 15: the monitored server of most tests. */
export { MACHINE_POSTGRES_URL as MONITORED_SERVER_URL } from "@dbmon/datastore/testing";

export const quietLogger: CollectorLogger = process.env.DEBUG_COLLECTOR
  ? {
      debug: (o, m) => console.warn("debug", m, o),
      info: (o, m) => console.warn("info", m, o),
      warn: (o, m) => console.warn("warn", m, o),
      error: (o, m) => console.error("error", m, o),
    }
  : { debug() {}, info() {}, warn() {}, error() {} };

export interface TestEnvironment {
  datastore: Datastore;
  secretKey: SecretKey;
  testDb: TestDatabase;
  /** Holds the secret file of `secretKey`. */
  dataDir: string;
  close(): Promise<void>;
}

/** A datastore of this test file's own (a migrated clone) and a secret key. */
export async function openTestEnvironment(): Promise<TestEnvironment> {
  const testDb = await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), "dbmon-collector-test-"));
  const datastore = await openDatastore({
    databaseUrl: testDb.url,
    dataDir,
    migrate: false,
    maxConnections: 6,
  });
  const secretKey = await loadSecretKey({ dataDir });
  return {
    datastore,
    secretKey,
    testDb,
    dataDir,
    async close() {
      await datastore.close();
      await testDb.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ConnectionFields {
  name?: string;
  host?: string;
  /** Connect here instead of resolving `host` (libpq's hostaddr): another address, the same server. */
  hostaddr?: string;
  port?: number;
  database_name: string;
  username?: string;
  password?: string;
  is_monitored?: boolean;
  is_local?: boolean;
}

export async function insertConnection(env: TestEnvironment, fields: ConnectionFields): Promise<number> {
  const [row] = await env.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, hostaddr, port, database_name, username, password_encrypted, sslmode,
      owner_username, is_monitored, is_local)
    values (${fields.name ?? fields.database_name}, ${fields.host ?? "127.0.0.1"}, ${fields.hostaddr ?? null},
      ${fields.port ?? 5432},
      ${fields.database_name}, ${fields.username ?? "postgres"},
      ${encryptSecret(env.secretKey, fields.password ?? "not-needed-with-trust")}, 'disable', 'admin',
      ${fields.is_monitored ?? true}, ${fields.is_local ?? false})
    returning id`;
  if (!row) {
    throw new Error("insert returned nothing");
  }
  return row.id;
}

/** A database of this test's own on a monitored server, dropped by the returned function. */
export interface MonitoredDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

export async function createMonitoredDatabase(
  serverUrl: string,
  setup?: (sql: postgres.Sql) => Promise<unknown>,
): Promise<MonitoredDatabase> {
  const name = `dbmon_mon_${randomBytes(5).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = databaseUrl(serverUrl, name);
  if (setup) {
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await setup(sql);
    } finally {
      await sql.end();
    }
  }
  return {
    name,
    url,
    async drop() {
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      await dropper.end();
    },
  };
}

export { waitFor } from "@dbmon/datastore/testing";

/** An embedded server of a test file's own, with a login role and databases made for it. */
export interface PrivateServer {
  server: EmbeddedServer;
  stop(): Promise<void>;
}

export async function startPrivateServer(
  name: string,
  role: { name: string; password: string },
  databases: readonly string[],
): Promise<PrivateServer> {
  const dataDir = await mkdtemp(join(tmpdir(), `dbmon-collector-${name}-`));
  const server = await startEmbeddedServer({ dataDir, port: 0, logger: silentLogger });
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create role "${role.name}" login password '${role.password}'`);
    for (const database of databases) {
      await admin.unsafe(`create database "${database}"`);
    }
  } finally {
    await admin.end();
  }
  return {
    server,
    async stop() {
      await server.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
