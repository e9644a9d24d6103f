// Checks @dbmon/contract and @dbmon/client as npm users get them: packs both with pnpm (so
// publishConfig applies), lints the tarballs (publint, attw), installs them with npm into a
// scratch project (no workspace links), type-checks a consumer and the packages' README examples
// with the workspace's TypeScript (strict; bundler and node16 resolution), then runs the consumer
// as ESM and as CommonJS against a dbmon started from apps/api/dist (`pnpm build` first).
// A datastore comes from TEST_DATABASE_URL (a fresh database, dropped after) or is embedded.
// CI runs it before the tests: `pnpm check-packages`.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import postgres from "postgres";

export const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = (name: string) => join(root, "packages/client/node_modules/.bin", name);
const tsc = join(root, "node_modules/typescript/bin/tsc");

/**
 * attw profiles. The client's `./validate` subpath exists only through `exports`, which node10
 * resolution (TypeScript's deprecated `moduleResolution: node`, and pre-`exports` bundlers) cannot
 * see at all, so node10 is left out for it; its root entry keeps `main`/`types` for such tools.
 * The contract has no subpath of its own and passes every resolution.
 */
const packages = [
  { name: "@dbmon/contract", dir: "packages/contract", attw: [] },
  { name: "@dbmon/client", dir: "packages/client", attw: ["--profile", "node16"] },
] as const;

/** What the README examples need besides our packages (pinned; installed from the npm registry). */
const exampleDependencies = { "@tanstack/react-query": "5.108.0", "@types/react": "19.3.0" };

/**
 * The consumer, written once and compiled twice: as `.mts` (ESM) and as `.cts` (CommonJS, its
 * imports become `require`). It logs in, calls with a service token in validation mode, and
 * checks typed errors and parameter types.
 */
export const consumer = `import { createDbmon, type GetHealthResult, NotFoundError } from "@dbmon/client";
import { contractValidator } from "@dbmon/client/validate";
import { allOperations } from "@dbmon/contract";

async function main(): Promise<void> {
  const baseUrl = process.env.DBMON_URL ?? "";
  const session = createDbmon({ baseUrl });
  const { session_token: token } = await session.auth.login({ username: "admin", password: process.env.DBMON_ADMIN_PASSWORD ?? "" });
  const dbmon = createDbmon({ baseUrl, token, validate: contractValidator() });
  const health: GetHealthResult = await dbmon.utilities.getHealth();
  const user = await dbmon.auth.getUserInfo();
  const missing = await dbmon.connections.get({ connection_id: 999_999 }).catch((error: unknown) => error);
  if (!(missing instanceof NotFoundError) || missing.status !== 404) {
    throw new Error(\`expected a NotFoundError, got \${String(missing)}\`);
  }
  // @ts-expect-error: path parameters are numbers, not strings
  void (() => dbmon.connections.get({ connection_id: "1" }));
  const fields = createDbmon({ baseUrl, token, responseStyle: "fields" });
  const { data, error } = await fields.connections.list();
  if (error || !data) {
    throw error ?? new Error("no data");
  }
  console.log(JSON.stringify({
    module: typeof require === "undefined" ? "esm" : "cjs",
    health: health.status,
    user: user.username,
    connections: data.length,
    operations: allOperations.length,
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
`;

export function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  console.log(`$ ${[command, ...args].join(" ")}`);
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.stdout.write(result.stdout ?? "");
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${result.status ?? result.signal}`);
  }
  return result.stdout;
}

/** Every TypeScript block of a Markdown file, in order. */
function typescriptBlocks(markdown: string): { code: string; extension: string }[] {
  return [...markdown.matchAll(/^```(ts|tsx|typescript)\n([\s\S]*?)^```$/gm)].map((match) => ({
    code: match[2] ?? "",
    extension: match[1] === "tsx" ? "tsx" : "ts",
  }));
}

export function writeTsconfig(dir: string, file: string, compilerOptions: object, files: string[]) {
  const shared = {
    strict: true,
    target: "es2022",
    lib: ["es2023", "dom", "dom.iterable"],
    types: ["node"],
    typeRoots: [join(root, "node_modules/@types")],
    // Type-check the packages' declarations too: an error there is an error users see.
    skipLibCheck: false,
  };
  writeFileSync(
    join(dir, file),
    JSON.stringify({ compilerOptions: { ...shared, ...compilerOptions }, files }, null, 2),
  );
}

/** Starts `dbmon serve` on a free port and resolves to its address once it listens. */
async function startDbmon(env: NodeJS.ProcessEnv): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn(process.execPath, [join(root, "apps/api/dist/cli.js"), "serve"], {
    env,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const output: string[] = [];
  const listening = new Promise<string>((resolve, reject) => {
    // Every line is read, also after the one awaited, so that dbmon never blocks on a full pipe.
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      output.push(line);
      const address = listeningAddress(line);
      if (address) {
        resolve(address);
      }
    });
    child.once("exit", (code) => reject(new Error(`dbmon exited with ${code}:\n${output.join("\n")}`)));
  });
  return { url: await listening, process: child };
}

/** The address of dbmon's "listening" log line, if `line` is that line. */
function listeningAddress(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; address?: string };
    return entry.msg === "dbmon API listening" ? entry.address : undefined;
  } catch {
    return undefined; // Not a log line of pino's.
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/**
 * Runs the consumer compiled by tsconfig.node16.json (consumer.mjs and consumer.cjs in `scratch`)
 * against the dbmon at `url`, whose admin is `admin` with `adminPassword`.
 */
export function runConsumer(scratch: string, url: string, adminPassword: string): void {
  for (const [file, module] of [
    ["consumer.mjs", "esm"],
    ["consumer.cjs", "cjs"],
  ] as const) {
    const output = run(process.execPath, [file], scratch, {
      ...process.env,
      DBMON_URL: url,
      DBMON_ADMIN_PASSWORD: adminPassword,
    });
    const result = JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    if (result.module !== module || result.user !== "admin" || result.health !== "ok") {
      throw new Error(`${file} gave ${output}`);
    }
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), "dbmon-packages-"));
  // An embedded PostgreSQL started as root runs as the postgres user, who must reach its directory.
  chmodSync(work, 0o755);
  const tarballs = join(work, "tarballs");
  const scratch = join(work, "scratch");
  mkdirSync(scratch, { recursive: true });
  let dbmon: ChildProcess | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  try {
    const tarball: Record<string, string> = {};
    for (const pkg of packages) {
      run("pnpm", ["pack", "--pack-destination", tarballs], join(root, pkg.dir));
      const file = readdirSync(tarballs).find((name) =>
        name.startsWith(`${pkg.name.replace("@", "").replace("/", "-")}-`),
      );
      if (!file) {
        throw new Error(`pnpm pack wrote no tarball for ${pkg.name}`);
      }
      tarball[pkg.name] = join(tarballs, file);
      run(bin("publint"), ["run", tarball[pkg.name] as string, "--strict"], root);
      run(
        bin("attw"),
        [tarball[pkg.name] as string, "--format", "table-flipped", "--no-color", ...pkg.attw],
        root,
      );
    }

    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify(
        {
          name: "dbmon-package-check",
          private: true,
          dependencies: {
            "@dbmon/client": `file:${tarball["@dbmon/client"]}`,
            "@dbmon/contract": `file:${tarball["@dbmon/contract"]}`,
            ...exampleDependencies,
          },
          // The client's dependency on the contract is a version; it must be the tarball too.
          overrides: { "@dbmon/contract": "$@dbmon/contract" },
        },
        null,
        2,
      ),
    );
    run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock"], scratch);
    const installed = readdirSync(join(scratch, "node_modules/@dbmon"));
    if (installed.join() !== "client,contract") {
      throw new Error(`the scratch project has ${installed.join()} under @dbmon`);
    }

    writeFileSync(join(scratch, "consumer.mts"), consumer);
    writeFileSync(join(scratch, "consumer.cts"), consumer);
    const examples: string[] = [];
    for (const pkg of packages) {
      const readme = readFileSync(join(scratch, "node_modules", pkg.name, "README.md"), "utf8");
      typescriptBlocks(readme).forEach((block, n) => {
        const file = `readme-${pkg.name.split("/")[1]}-${n + 1}.${block.extension}`;
        // `export {}` makes each block a module of its own, as it is in a reader's project.
        writeFileSync(join(scratch, file), `${block.code}\nexport {};\n`);
        examples.push(file);
      });
    }
    writeTsconfig(scratch, "tsconfig.node16.json", { module: "node16", moduleResolution: "node16" }, [
      "consumer.mts",
      "consumer.cts",
    ]);
    writeTsconfig(
      scratch,
      "tsconfig.bundler.json",
      { module: "preserve", moduleResolution: "bundler", noEmit: true, jsx: "react-jsx" },
      ["consumer.mts", ...examples],
    );
    console.log(`type-checking the consumer and ${examples.length} README examples`);
    run(process.execPath, [tsc, "-p", "tsconfig.bundler.json"], scratch);
    // Compiles consumer.mts to consumer.mjs and consumer.cts to consumer.cjs.
    run(process.execPath, [tsc, "-p", "tsconfig.node16.json"], scratch);

    const adminPassword = `Pk-${randomBytes(18).toString("base64url")}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DBMON_HOST: "127.0.0.1",
      DBMON_PORT: "0",
      DBMON_DATA_DIR: join(work, "data"),
      DBMON_EMBEDDED_PORT: "0",
      DBMON_COLLECTOR: "false",
      DBMON_ALERTER: "false",
      DBMON_MONITOR_SELF: "false",
      DBMON_ADMIN_USERNAME: "admin",
      DBMON_ADMIN_PASSWORD: adminPassword,
      DBMON_SECRET: randomBytes(24).toString("hex"),
      DBMON_LOG_LEVEL: "info",
    };
    delete env.DBMON_DATABASE_URL;
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (serverUrl) {
      const name = `dbmon_packages_${randomBytes(6).toString("hex")}`;
      const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`create database "${name}"`);
      dropDatabase = async () => {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
        await admin.end();
      };
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      env.DBMON_DATABASE_URL = url.toString();
    }
    const started = await startDbmon(env);
    dbmon = started.process;
    console.log(`dbmon listening on ${started.url}`);
    runConsumer(scratch, started.url, adminPassword);
    console.log("packages OK: publint, attw, npm install, types (bundler, node16), ESM and CJS calls");
  } finally {
    if (dbmon) {
      await stop(dbmon);
    }
    await dropDatabase?.();
    rmSync(work, { recursive: true, force: true });
  }
}

// check-release.ts imports the helpers above; only `pnpm check-packages` runs the check.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main();
}
