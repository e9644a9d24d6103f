// The release path, end to end, before any real release: starts a local npm registry (verdaccio,
// its storage a temporary directory, other packages proxied from the registry npm is configured
// with), versions a copy of the repository with changesets and builds it, checks that `npm publish`
// is refused, lints (publint) and publishes @dbmon/contract, @dbmon/client and @dbmon/api with pnpm,
// installs the client from the registry into a scratch project with npm, type-checks the consumer
// of check-packages.ts, starts `npx @dbmon/api serve` (embedded PostgreSQL; nothing from this
// repository), waits for /health, runs the consumer against it and stops it with SIGTERM.
// CI: `pnpm check-release`.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { consumer, root, run, runConsumer, writeTsconfig } from "./check-packages.js";

/** The published packages, in publishing order (each after those it depends on). */
const published = [
  { name: "@dbmon/contract", dir: "packages/contract" },
  { name: "@dbmon/client", dir: "packages/client" },
  { name: "@dbmon/api", dir: "apps/api" },
] as const;

/** The summary of the changeset written for this check, looked for in the published changelog. */
const changesetSummary = "Release check: published to a temporary registry by check-release.ts.";

/** npm and npx as a user's shell runs them: no settings inherited from the pnpm that runs this script. */
function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_|pnpm_|DBMON_)/i.test(key)),
  );
  return { ...env, ...extra };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address === "string") {
    throw new Error("no free port");
  }
  return address.port;
}

/** Polls `url` until it answers 200, the process `child` exits, or `timeoutMs` passes. */
async function waitForOk(url: string, child: ChildProcess, timeoutMs: number, log: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`exited (${child.exitCode ?? child.signalCode}) before ${url} answered:\n${log()}`);
    }
    const status = await fetch(url).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s:\n${log()}`);
}

/** Starts `command` in a process group of its own, its output kept for failure reports. */
function spawnGroup(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-100_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return { child, log: () => output };
}

/** The live processes (zombies aside) of the process group `pgid`, as `ps` lines. */
function groupProcesses(pgid: number): string[] {
  const ps = spawnSync("ps", ["-eo", "pid=,pgid=,stat=,args="], { encoding: "utf8" });
  return ps.stdout.split("\n").filter((line) => {
    const [, group, stat] = line.trim().split(/\s+/);
    return Number(group) === pgid && !stat?.startsWith("Z");
  });
}

/**
 * Ends the process groups of `children` that still run: SIGTERM (the embedded PostgreSQL stops
 * cleanly), SIGKILL for what is left after 15 s.
 */
async function endGroups(children: (ChildProcess | undefined)[]): Promise<void> {
  const groups = children
    .map((child) => child?.pid)
    .filter((pgid): pgid is number => pgid !== undefined && groupProcesses(pgid).length > 0);
  for (const pgid of groups) {
    process.kill(-pgid, "SIGTERM");
  }
  const deadline = Date.now() + 15_000;
  while (groups.some((pgid) => groupProcesses(pgid).length > 0) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  for (const pgid of groups.filter((group) => groupProcesses(group).length > 0)) {
    process.kill(-pgid, "SIGKILL");
  }
}

/**
 * What the server reads from disk at run time, used through the installed package: the API
 * reference's assets (swagger-ui-dist), and the SQL parser (its worker thread, libpg-query's WASM) on
 * a connection to the embedded PostgreSQL with its superuser's credentials (ad-hoc queries are
 * refused on `local`). Migrations and the knowledge base's corpus are read before /health answers.
 */
async function checkRuntimeFiles(url: string, adminPassword: string, dataDir: string, embeddedPort: number) {
  const asset = await fetch(`${url}/api/v1/docs/assets/swagger-ui-bundle.js`);
  if (asset.status !== 200) {
    throw new Error(`the API reference's script answered ${asset.status}`);
  }
  const call = async (path: string, body: object, token?: string) => {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(json)}`);
    }
    return json;
  };
  const token = (await call("/api/v1/auth/login", { username: "admin", password: adminPassword }))
    .session_token as string;
  const superuser = JSON.parse(readFileSync(join(dataDir, "embedded-credentials.json"), "utf8")) as {
    user: string;
    password: string;
  };
  const connection = await call(
    "/api/v1/connections",
    {
      name: "embedded, as its superuser",
      host: "127.0.0.1",
      port: embeddedPort,
      database_name: "postgres",
      username: superuser.user,
      password: superuser.password,
      is_monitored: false,
    },
    token,
  );
  const answer = (await call(
    `/api/v1/connections/${connection.id}/query`,
    { query: "select 41 + 1 as answer; -- parsed in the worker thread" },
    token,
  )) as { results?: { rows: string[][] }[] };
  if (answer.results?.[0]?.rows[0]?.[0] !== "42") {
    throw new Error(`the query answered ${JSON.stringify(answer)}`);
  }
}

/** A verdaccio on a free port: our scope is published to it; everything else comes from `upstream`. */
async function startRegistry(work: string, upstream: string, onStart: (child: ChildProcess) => void) {
  const port = await freePort();
  const config = join(work, "verdaccio.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(work, "registry-storage"))}`,
      "auth:",
      `  htpasswd: { file: ${JSON.stringify(join(work, "htpasswd"))} }`,
      // A slow upstream is waited for and retried: verdaccio's defaults take it offline for 5
      // minutes after two failures, failing the rest of the install.
      `uplinks: { upstream: { url: ${JSON.stringify(upstream)}, timeout: 60s, max_fails: 10, fail_timeout: 10s } }`,
      "packages:",
      '  "@dbmon/*": { access: $all, publish: $all }',
      '  "**": { access: $all, publish: $all, proxy: upstream }',
      "web: { enable: false }",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const verdaccio = dirname(createRequire(join(root, "package.json")).resolve("verdaccio/package.json"));
  const started = spawnGroup(
    process.execPath,
    [join(verdaccio, "bin/verdaccio"), "--config", config, "--listen", `127.0.0.1:${port}`],
    work,
    userEnv({}),
  );
  onStart(started.child);
  const url = `http://127.0.0.1:${port}`;
  await waitForOk(`${url}/-/ping`, started.child, 60_000, started.log);
  // npm publishes only with a token, even where anyone may publish: a throwaway user's.
  const user = `release-check-${randomBytes(4).toString("hex")}`;
  const response = await fetch(`${url}/-/user/org.couchdb.user:${user}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: user, password: randomBytes(18).toString("base64url") }),
  });
  const { token } = (await response.json()) as { token?: string };
  if (!response.ok || !token) {
    throw new Error(`the registry created no user (${response.status})`);
  }
  // The token goes to a userconfig of this check's own, never to the command line (or its log).
  const userconfig = join(work, "npmrc");
  writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=${token}\n`, { mode: 0o600 });
  return { url, userconfig };
}

/**
 * A copy of the working tree (tracked and untracked files, not the ignored ones), versioned by
 * `changeset version` with one more changeset naming the three packages, then built. Returns the
 * version they get.
 */
function versionedCopy(copy: string): string {
  const files = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  })
    .stdout.split("\0")
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(root, file), join(copy, file));
  }
  // As the release workflow's checkout: installed (pnpm publish reads the versions of workspace
  // dependencies from node_modules; changesets loads its changelog generator from there). From the
  // store the workspace was installed from, so nothing is downloaded.
  run("pnpm", ["install", "--frozen-lockfile", "--offline", "--ignore-scripts"], copy, userEnv({}));
  writeFileSync(
    join(copy, ".changeset/release-check.md"),
    `---\n${published.map((pkg) => `"${pkg.name}": patch\n`).join("")}---\n\n${changesetSummary}\n`,
  );
  run(join(copy, "node_modules/.bin/changeset"), ["version"], copy);
  // Built after versioning, as the release workflow builds the merged version bump: the contract's
  // OpenAPI document and the server's /health carry the version.
  run(
    join(copy, "node_modules/.bin/turbo"),
    ["run", "build", "--output-logs=errors-only", ...published.map((pkg) => `--filter=${pkg.name}`)],
    copy,
    userEnv({ TURBO_TELEMETRY_DISABLED: "1" }),
  );
  const versions = published.map(
    (pkg) =>
      (JSON.parse(readFileSync(join(copy, pkg.dir, "package.json"), "utf8")) as { version: string }).version,
  );
  if (new Set(versions).size !== 1) {
    throw new Error(`the fixed group got different versions: ${versions.join(", ")}`);
  }
  const version = versions[0] as string;
  requireNoUnannouncedMajor(version);
  return version;
}

/**
 * A major release is one a changeset asks for. Changesets would otherwise make one by itself: by
 * default it bumps a package major whenever a peer dependency of it moves (the client's optional
 * peer on the contract), hence `onlyUpdatePeerDependentsWhenOutOfRange` in .changeset/config.json.
 */
function requireNoUnannouncedMajor(version: string): void {
  const current = (
    JSON.parse(readFileSync(join(root, "apps/api/package.json"), "utf8")) as { version: string }
  ).version;
  const major = (text: string) => Number(text.split(".")[0]);
  const pending = readdirSync(join(root, ".changeset")).filter(
    (file) => file.endsWith(".md") && file !== "README.md",
  );
  const announced = pending.some((file) =>
    /^"[^"]+":\s*major\s*$/m.test(readFileSync(join(root, ".changeset", file), "utf8")),
  );
  if (!announced && major(version) !== major(current)) {
    throw new Error(`changeset version made ${version} of ${current}, a major release no changeset asks for`);
  }
}

/**
 * The server's bundles carry dbmon's patch of postgres.js (patches/), which npm would not apply to a
 * postgres it installs: the bundled driver is the patched one.
 */
function assertPatchedDriverBundled(dist: string): void {
  const patched = readdirSync(dist)
    .filter((file) => file.endsWith(".js"))
    .some((file) => readFileSync(join(dist, file), "utf8").includes("error(lastError || Errors.connection("));
  if (!patched) {
    throw new Error(`${dist} does not bundle the patched postgres.js`);
  }
}

/** Plain `npm publish` must fail in the guard (prepublishOnly), before anything is packed. */
function assertNpmPublishRefused(dir: string, registry: string, userconfig: string): void {
  const result = spawnSync("npm", ["publish", "--dry-run", "--registry", registry], {
    cwd: dir,
    env: userEnv({ NPM_CONFIG_USERCONFIG: userconfig }),
    encoding: "utf8",
  });
  if (result.status === 0 || !result.stderr.includes("is published with pnpm only")) {
    throw new Error(`npm publish --dry-run in ${dir} was not refused:\n${result.stdout}${result.stderr}`);
  }
}

async function main() {
  const started = Date.now();
  const step = (what: string) => console.log(`== [${((Date.now() - started) / 1000).toFixed(0)} s] ${what}`);
  const work = mkdtempSync(join(tmpdir(), "dbmon-release-"));
  // An embedded PostgreSQL started as root runs as the postgres user, who must reach its directory
  // and its binaries (installed by npx below this directory, in the npm cache).
  chmodSync(work, 0o755);
  const copy = join(work, "repository");
  const scratch = join(work, "scratch");
  mkdirSync(scratch);
  // npm's cache (where npx installs) of this check alone: what it installs comes from the registry.
  const npmCache = join(work, "npm-cache");
  let registry: ChildProcess | undefined;
  let server: ChildProcess | undefined;
  const cleanUp = async () => {
    await endGroups([server, registry]);
    rmSync(work, { recursive: true, force: true });
  };
  // The registry and the server run in process groups of their own, which a Ctrl-C does not reach.
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void cleanUp().finally(() => process.exit(1));
    });
  }
  try {
    const upstream = run("npm", ["config", "get", "registry"], root, userEnv({})).trim();
    step("starting the local registry");
    const local = await startRegistry(work, upstream, (child) => {
      registry = child;
    });

    step("changeset version on a copy of the repository");
    const version = versionedCopy(copy);
    console.log(`version ${version}`);

    step("the server bundles the patched postgres.js");
    assertPatchedDriverBundled(join(copy, "apps/api/dist"));

    step("plain npm publish is refused");
    for (const pkg of published) {
      assertNpmPublishRefused(join(copy, pkg.dir), local.url, local.userconfig);
    }

    step("publint and pnpm publish");
    for (const pkg of published) {
      // check-packages lints the contract's and the client's tarballs too; the server's only here.
      const publint = join(copy, "packages/client/node_modules/.bin/publint");
      run(publint, ["run", ".", "--strict", "--pack", "pnpm"], join(copy, pkg.dir), userEnv({}));
      run(
        "pnpm",
        ["publish", "--registry", local.url, "--no-git-checks", "--provenance=false"],
        join(copy, pkg.dir),
        // Provenance (publishConfig) is attested by the release workflow's CI provider only.
        userEnv({ NPM_CONFIG_USERCONFIG: local.userconfig }),
      );
    }

    step("npm install @dbmon/client into a scratch project");
    const npm = userEnv({ npm_config_cache: npmCache, NPM_CONFIG_UPDATE_NOTIFIER: "false" });
    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify({ name: "dbmon-release-check", private: true }),
    );
    run(
      "npm",
      [
        "install",
        "--registry",
        local.url,
        "--no-audit",
        "--no-fund",
        `@dbmon/client@${version}`,
        `@dbmon/contract@${version}`,
      ],
      scratch,
      npm,
    );
    const changelog = readFileSync(join(scratch, "node_modules/@dbmon/client/CHANGELOG.md"), "utf8");
    if (!changelog.includes(`## ${version}`) || !changelog.includes(changesetSummary)) {
      throw new Error(`the published CHANGELOG.md of @dbmon/client lacks version ${version}:\n${changelog}`);
    }
    writeFileSync(join(scratch, "consumer.mts"), consumer);
    writeFileSync(join(scratch, "consumer.cts"), consumer);
    writeTsconfig(scratch, "tsconfig.json", { module: "node16", moduleResolution: "node16" }, [
      "consumer.mts",
      "consumer.cts",
    ]);
    step("type-checking and compiling the consumer");
    run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], scratch);

    step(`npx @dbmon/api@${version} serve (embedded PostgreSQL)`);
    const [port, embeddedPort] = [await freePort(), await freePort()];
    const dataDir = join(work, "data");
    const adminPassword = `Pk-${randomBytes(18).toString("base64url")}`;
    const serve = spawnGroup(
      "npx",
      ["--yes", "--registry", local.url, `@dbmon/api@${version}`, "serve"],
      scratch,
      {
        ...npm,
        DBMON_PORT: String(port),
        DBMON_EMBEDDED_PORT: String(embeddedPort),
        DBMON_DATA_DIR: dataDir,
        DBMON_ADMIN_USERNAME: "admin",
        DBMON_ADMIN_PASSWORD: adminPassword,
      },
    );
    server = serve.child;
    const url = `http://127.0.0.1:${port}`;
    await waitForOk(`${url}/health`, server, 300_000, serve.log);
    step("dbmon serves /health; the consumer calls it");
    const health = (await (await fetch(`${url}/health`)).json()) as { version?: string };
    if (health.version !== version) {
      throw new Error(`/health reports version ${health.version}, the package is ${version}`);
    }
    runConsumer(scratch, url, adminPassword);

    await checkRuntimeFiles(url, adminPassword, dataDir, embeddedPort);

    // To the process group, as a terminal's Ctrl-C or a service manager's stop signals it: npx (npm
    // exec) does not pass a SIGTERM of its own on to the command it runs, and ends by re-raising it,
    // so dbmon's clean stop is read from its log, its processes and its PostgreSQL's pid file.
    step("SIGTERM to npx's process group");
    const pgid = server.pid as number;
    process.kill(-pgid, "SIGTERM");
    const deadline = Date.now() + 60_000;
    while (groupProcesses(pgid).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const left = groupProcesses(pgid);
    const log = serve.log();
    if (left.length > 0 || !log.includes("dbmon stopped") || existsSync(join(dataDir, "pg/postmaster.pid"))) {
      throw new Error(`dbmon did not stop cleanly; still running:\n${left.join("\n")}\n${log}`);
    }
    step("release path OK");
  } finally {
    await cleanUp();
    step("cleaned up");
  }
}

await main();
