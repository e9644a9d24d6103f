import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { DRIVER_TYPE_OPTIONS } from "./driver-types.js";
import { type DurableListener, ListenHub } from "./durable-listen.js";
import { type EmbeddedServer, startEmbeddedServer } from "./embedded.js";
import { type DatastoreLogger, silentLogger } from "./logger.js";
import { migrateDatastore } from "./migrate.js";
import { drizzleOf } from "./queries/drizzle.js";
import type * as schema from "./schema/index.js";

export type Db = PostgresJsDatabase<typeof schema>;
export type Sql = postgres.Sql;

export interface DatastoreConfig {
  /** An external PostgreSQL server; when absent an embedded server runs in `dataDir`. */
  databaseUrl?: string | undefined;
  /** Where the embedded server keeps its data. */
  dataDir: string;
  /** Port of the embedded server on 127.0.0.1; 0 picks a free one. */
  embeddedPort?: number;
  /** Pool size of this process. */
  maxConnections?: number;
  /** Apply pending migrations on open (the default). */
  migrate?: boolean;
  logger?: DatastoreLogger;
  /** How often the LISTEN session is checked, and replaced when lost (`ListenHub`). Default 10. */
  listenCheckSeconds?: number;
}

export interface Datastore {
  db: Db;
  sql: Sql;
  /** Connection URL in use (carries credentials: never log it). */
  url: string;
  /** The embedded server, when this process started one. */
  embedded: EmbeddedServer | undefined;
  /**
   * LISTEN on a channel through the process's one listening session, which outlives datastore
   * restarts (`ListenHub`); `onListen` runs on every (re)subscription, since notifications sent
   * while it was down are lost.
   */
  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onListen?: () => void,
  ): Promise<DurableListener>;
  /** Resolves when the datastore answers a trivial query. */
  ping(): Promise<void>;
  /** Closes the pool and stops an embedded server. */
  close(): Promise<void>;
}

export async function openDatastore(config: DatastoreConfig): Promise<Datastore> {
  const logger = config.logger ?? silentLogger;
  const embedded = config.databaseUrl
    ? undefined
    : await startEmbeddedServer({ dataDir: config.dataDir, port: config.embeddedPort ?? 0, logger });
  const url = config.databaseUrl ?? (embedded as EmbeddedServer).url;
  try {
    if (config.migrate !== false) {
      await migrateDatastore(url);
    }
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const options = {
    ...DRIVER_TYPE_OPTIONS,
    onnotice: () => {},
    connection: { application_name: "dbmon" },
  };
  const sql = postgres(url, { ...options, max: config.maxConnections ?? 10 });
  const listens = new ListenHub(
    () => postgres(url, { ...options, max: 1 }),
    sql,
    (config.listenCheckSeconds ?? 10) * 1000,
  );
  let closed = false;
  return {
    db: drizzleOf(sql),
    sql,
    url,
    embedded,
    listen: (channel, onNotify, onListen) => listens.listen(channel, onNotify, onListen),
    async ping() {
      await sql`select 1`;
    },
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      await listens.close();
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}
