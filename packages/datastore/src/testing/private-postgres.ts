import { execFile } from "node:child_process";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { findRunuser, MACHINE_POSTGRES_BIN } from "./machine-postgres.js";
import { databaseUrl } from "./urls.js";

const run = promisify(execFile);

/** The machine's PostgreSQL 15; servers run as the `postgres` OS user on private ports and directories. */
const BIN = MACHINE_POSTGRES_BIN;
const OS_USER = "postgres";

/** A PostgreSQL 15 server of a test's own (trust authentication on 127.0.0.1). */
export interface TestServer {
  port: number;
  dataDir: string;
  /** URL of its `postgres` database. */
  url: string;
  /** URL of another of its databases. */
  urlOf(database: string): string;
  /** Stops the server (fast shutdown), keeping its data. */
  stop(): Promise<void>;
  /** Starts it again after `stop()`. */
  start(): Promise<void>;
  /** A restart, which applies settings that need one (ALTER SYSTEM of max_connections, ...). */
  restart(): Promise<void>;
  /** Stops it at once and deletes its directory. */
  remove(): Promise<void>;
}

/** Settings appended to postgresql.conf (later lines win over earlier ones). */
export type ServerSettings = Readonly<Record<string, string | number>>;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** The command line that runs a PostgreSQL binary: as the `postgres` OS user under root. */
export function postgresCommand(command: string, args: string[]): [string, string[]] {
  const binary = join(BIN, command);
  if (process.getuid?.() !== 0) {
    return [binary, args];
  }
  const runuser = findRunuser();
  if (!runuser) {
    throw new Error("running PostgreSQL as root needs runuser (not found on PATH, in /usr/sbin or in /sbin)");
  }
  return [runuser, ["-u", OS_USER, "--", binary, ...args]];
}

function asPostgres(command: string, args: string[]) {
  const [file, fullArgs] = postgresCommand(command, args);
  return run(file, fullArgs, { timeout: 60_000 });
}

/** Runs `create` on a new private directory, and removes the directory when `create` fails. */
async function inPrivateDir<T>(create: (root: string, data: string) => Promise<T>): Promise<T> {
  const { root, data } = await privateDir();
  try {
    return await create(root, data);
  } catch (error) {
    await asPostgres("pg_ctl", ["-D", data, "-m", "immediate", "stop"]).catch(() => {});
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function privateDir(): Promise<{ root: string; data: string }> {
  const root = await mkdtemp(join(tmpdir(), "dbmon-repl-"));
  if (process.getuid?.() === 0) {
    try {
      const { stdout } = await run("id", ["-u", OS_USER]);
      const { stdout: gid } = await run("id", ["-g", OS_USER]);
      await chown(root, Number(stdout.trim()), Number(gid.trim()));
    } catch (error) {
      await rm(root, { recursive: true, force: true });
      throw error;
    }
  }
  return { root, data: join(root, "data") };
}

function settings(
  port: number,
  root: string,
  walLevel: "replica" | "logical",
  extra: ServerSettings,
): string {
  const base: ServerSettings = {
    port,
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${root}'`,
    wal_level: walLevel,
    max_wal_senders: 5,
    max_replication_slots: 5,
    max_connections: 30,
    shared_buffers: "16MB",
    fsync: "off",
    synchronous_commit: "off",
    hot_standby: "on",
  };
  return `${Object.entries({ ...base, ...extra })
    .map(([name, value]) => `${name} = ${value}`)
    .join("\n")}\n`;
}

async function start(root: string, data: string, port: number): Promise<TestServer> {
  const log = join(root, "server.log");
  const pgCtl = (...args: string[]) => asPostgres("pg_ctl", ["-D", data, "-w", "-t", "60", ...args]);
  await pgCtl("-l", log, "start");
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    port,
    dataDir: data,
    url,
    urlOf: (database) => databaseUrl(url, database),
    stop: async () => {
      await pgCtl("-m", "fast", "stop");
    },
    start: async () => {
      await pgCtl("-l", log, "start");
    },
    restart: async () => {
      await pgCtl("-m", "fast", "-l", log, "restart");
    },
    async remove() {
      await pgCtl("-m", "immediate", "stop").catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** A new primary server (trust authentication on 127.0.0.1, replication allowed). */
export async function startPrimary(
  walLevel: "replica" | "logical",
  extra: ServerSettings = {},
  hbaLines: readonly string[] = [],
): Promise<TestServer> {
  return inPrivateDir(async (root, data) => {
    const port = await freePort();
    await asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "-N", "--encoding=UTF8"]);
    await writeFile(join(data, "postgresql.conf"), settings(port, root, walLevel, extra), { flag: "a" });
    for (const line of hbaLines) {
      await writeFile(join(data, "pg_hba.conf"), `${line}\n`, { flag: "a" });
    }
    return start(root, data, port);
  });
}

/**
 * A new primary reachable at every loopback address (127.0.0.0/8, trust): connections registered
 * with a `hostaddr` of their own (127.0.x.y) are servers of their own to dbmon, whose rule is that
 * connections at one address are one server, while one test server holds them all.
 */
export function startLoopbackPrimary(extra: ServerSettings = {}): Promise<TestServer> {
  return startPrimary("replica", { ...extra, listen_addresses: "'0.0.0.0'" }, [
    "host all all 127.0.0.0/8 trust",
  ]);
}

/** A streaming standby of `primary`, cloned with pg_basebackup. */
export async function startStandby(primary: TestServer, extra: ServerSettings = {}): Promise<TestServer> {
  return inPrivateDir(async (root, data) => {
    const port = await freePort();
    await asPostgres("pg_basebackup", [
      "-h",
      "127.0.0.1",
      "-p",
      String(primary.port),
      "-U",
      "postgres",
      "-D",
      data,
      "-R",
      "-X",
      "stream",
      "-N",
    ]);
    // Later settings win: the copied configuration still names the primary's port and socket.
    await writeFile(join(data, "postgresql.conf"), settings(port, root, "replica", extra), { flag: "a" });
    return start(root, data, port);
  });
}
