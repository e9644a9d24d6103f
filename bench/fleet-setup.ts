// The setup the fleet benchmarks share (`pnpm bench fleet`, `pnpm bench soak`): a fresh datastore
// database on the machine's PostgreSQL, migrated as `dbmon serve` would, a secret key, and the
// monitored clusters, each database registered as a connection of its own.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Datastore, loadSecretKey, openDatastore } from "../packages/datastore/src/index.js";
import { databaseUrl } from "../packages/datastore/src/testing/urls.js";
import {
  FLEET_MONITORING_ROLE,
  type FleetCluster,
  removeFleetCluster,
  startFleetCluster,
} from "./fleet-databases.js";
import { type Cleanup, namedSessions } from "./processes.js";

/** The datastore's server; the benchmark creates a database of its own there and drops it at the end. */
const SERVER_URL = process.env.DBMON_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface Fleet {
  datastore: Datastore;
  clusters: FleetCluster[];
  /** DBMON_DATA_DIR of the children: where the secret key is. */
  secretDir: string;
  setupSeconds: number;
  /** The environment of a bench child process, its datastore sessions named `fleet <application>`. */
  childEnv(application: string): NodeJS.ProcessEnv;
}

export async function setUpFleet(cleanup: Cleanup, databases: number, perCluster: number): Promise<Fleet> {
  const setupStarted = performance.now();
  const name = `dbmon_fleet_${randomBytes(4).toString("hex")}`;
  const server = await openDatastore({
    databaseUrl: SERVER_URL,
    dataDir: "",
    migrate: false,
    maxConnections: 1,
  });
  cleanup.add("close the datastore's server", () => server.close());
  await server.sql.unsafe(`create database ${name}`);
  cleanup.add("drop the datastore", () => server.sql.unsafe(`drop database if exists ${name} with (force)`));
  const datastore = await openDatastore({
    databaseUrl: databaseUrl(SERVER_URL, name),
    dataDir: "",
    maxConnections: 4,
  });
  cleanup.add("close the datastore", () => datastore.close());
  const secretDir = await mkdtemp(join(tmpdir(), "dbmon-bench-secret-"));
  cleanup.add("remove the secret directory", () => rm(secretDir, { recursive: true, force: true }));
  await loadSecretKey({ dataDir: secretDir });

  // The clusters, two at a time (one per core), each registered as it comes.
  const clusterCount = Math.ceil(databases / perCluster);
  const clusters: FleetCluster[] = [];
  const starting: Promise<FleetCluster>[] = [];
  cleanup.add("stop the clusters", async () => {
    // Those still starting too (an interruption during the setup).
    const settled = await Promise.allSettled(starting);
    await Promise.all(
      settled.flatMap((result) => (result.status === "fulfilled" ? [removeFleetCluster(result.value)] : [])),
    );
  });
  for (let index = 0; index < clusterCount; index += 2) {
    cleanup.checkpoint();
    const pair = [index, index + 1]
      .filter((cluster) => cluster < clusterCount)
      .map((cluster) => {
        const first = cluster * perCluster + 1;
        return startFleetCluster(first, Math.min(perCluster, databases - first + 1));
      });
    starting.push(...pair);
    const started = await Promise.all(pair);
    clusters.push(...started);
    for (const cluster of started) {
      await datastore.sql`
        insert into connections (name, host, port, database_name, username, sslmode, owner_username, is_monitored)
        select d, '127.0.0.1', ${cluster.server.port}, d, ${FLEET_MONITORING_ROLE}, 'disable', 'admin', true
        from unnest(${cluster.databases}::text[]) d`;
    }
  }
  return {
    datastore,
    clusters,
    secretDir,
    setupSeconds: (performance.now() - setupStarted) / 1000,
    childEnv: (application) => ({
      BENCH_DATASTORE_URL: namedSessions(datastore.url, `fleet ${application}`),
      BENCH_SECRET_DIR: secretDir,
    }),
  };
}
