import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const apiDir = fileURLToPath(new URL("..", import.meta.url));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `dbmon` from source with a clean environment plus `env`. */
const children: ChildProcess[] = [];

function dbmon(
  args: string[],
  env: Record<string, string> = {},
  options: { ownGroup?: boolean } = {},
): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], {
    cwd: apiDir,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // A process group of its own, as a terminal's foreground job: Ctrl-C signals the whole group.
    detached: options.ownGroup ?? false,
  });
  children.push(child);
  return child;
}

// A test that fails half-way must not leave a server, collector or alerter running.
afterEach(() => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
    }
  }
});

function finished(child: ChildProcess): Promise<Finished> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

/** Waits for the "listening" log line of `dbmon serve` and returns the address. */
function listeningAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"address":"(http:[^"]+)"/.exec(buffered);
      if (match?.[1]) {
        resolve(match[1]);
      }
    });
    child.on("close", (code) => reject(new Error(`dbmon exited with ${code} before listening: ${buffered}`)));
  });
}

describe("dbmon command line", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  it("prints the OpenAPI document", async () => {
    const result = await finished(dbmon(["openapi", "--json"]));
    expect(result.code).toBe(0);
    const committed = JSON.parse(
      readFileSync(new URL("../../../packages/contract/openapi.json", import.meta.url), "utf8"),
    ) as unknown;
    expect(JSON.parse(result.stdout)).toEqual(committed);
  });

  it("stops with one line naming a wrong variable", async () => {
    const result = await finished(dbmon(["serve"], { DBMON_PORT: "eighty" }));
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe("dbmon: Invalid configuration: DBMON_PORT must be a port number");
  });

  it("migrates an external datastore and reports it as JSON", async () => {
    const result = await finished(dbmon(["migrate", "--json"], { DBMON_DATABASE_URL: database.url }));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ migrated: true, datastore: "external" });
  });

  it("serves, then shuts down cleanly on SIGTERM", async () => {
    const child = dbmon(["serve"], { DBMON_DATABASE_URL: database.url, DBMON_PORT: "0" });
    const done = finished(child);
    const address = await listeningAddress(child);
    const res = await fetch(`${address}/health`);
    expect(res.status).toBe(200);
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"msg":"dbmon stopped"');
    // Logs never carry the datastore URL (it holds credentials).
    expect(result.stdout).not.toContain(database.url);
    await expect(fetch(`${address}/health`)).rejects.toThrow();
  });

  it("runs on the embedded datastore, monitors it as `local`, shares it with other commands, and stops cleanly on Ctrl-C", {
    timeout: 180_000,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "dbmon-cli-"));
    try {
      const password = "newcomer-admin-password-1";
      const child = dbmon(
        ["serve"],
        {
          DBMON_DATA_DIR: dataDir,
          DBMON_PORT: "0",
          DBMON_EMBEDDED_PORT: "0",
          DBMON_ADMIN_PASSWORD: password,
        },
        { ownGroup: true },
      );
      const done = finished(child);
      const address = await listeningAddress(child);
      expect(await (await fetch(`${address}/health`)).json()).toMatchObject({ status: "ok" });

      // The newcomer's first minute: log in, and server information of `local` is real data.
      const login = await fetch(`${address}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ username: "admin", password }),
      });
      const { session_token: token } = (await login.json()) as { session_token: string };
      const headers = { authorization: `Bearer ${token}` };
      const connections = (await (await fetch(`${address}/api/v1/connections`, { headers })).json()) as {
        id: number;
        name: string;
        username: string;
        owner_username: string | null;
      }[];
      expect(connections.map((connection) => connection.name)).toEqual(["local"]);
      // Not the datastore's superuser: the monitoring role, owned by no one, closed to ad-hoc SQL.
      expect(connections[0]).toMatchObject({ username: "dbmon_monitor", owner_username: null });
      const adHoc = await fetch(`${address}/api/v1/connections/${connections[0]?.id}/query`, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ query: "select * from users" }),
      });
      expect(adHoc.status).toBe(403);

      // Other commands use the running embedded server and leave it running; --json is one document.
      const env = { DBMON_DATA_DIR: dataDir };
      for (const args of [
        ["user", "list", "--json"],
        ["migrate", "--json"],
      ]) {
        const command = await finished(dbmon(args, env));
        expect(command.code).toBe(0);
        expect(command.stdout.trim().split("\n")).toHaveLength(1);
        expect(JSON.parse(command.stdout)).toBeTypeOf("object");
        expect(command.stderr).not.toContain("stopping");
      }
      expect((await fetch(`${address}/api/v1/connections`, { headers })).status).toBe(200);
      let info: { dbserver: { version: string | null }; databases: { name: string }[] } | undefined;
      for (let waited = 0; waited < 60_000 && !info?.dbserver.version; waited += 1000) {
        await new Promise((ready) => setTimeout(ready, 1000));
        info = (await (
          await fetch(`${address}/api/v1/server-info/${connections[0]?.id}`, { headers })
        ).json()) as typeof info;
      }
      expect(info?.dbserver.version).toMatch(/^18\./);
      expect(info?.databases.map((database) => database.name)).toContain("postgres");

      expect((await fetch(`${address}/api/v1/docs`)).status).toBe(200);

      // Ctrl-C: SIGINT to the whole group. The embedded server, in a group of its own, stays up
      // until dbmon released its leases and stops it.
      process.kill(-(child.pid as number), "SIGINT");
      // Under `pnpm start` the same Ctrl-C comes again, passed on by pnpm: it must not cut the shutdown.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (child.exitCode === null) {
        process.kill(child.pid as number, "SIGINT");
      }
      const result = await done;
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('"msg":"embedded datastore stopped"');
      expect(result.stdout).toContain('"msg":"dbmon stopped"');
      // Nothing a newcomer must ignore: no warning (the monitoring role reads all that `local` probes).
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/ECONNRESET|"level":[456]0/);
      expect(result.stdout).not.toContain(password);
      // initdb, minutes on a slow disk, is announced and timed; start-up ends with where to go.
      const logs = result.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const messages = logs.map((entry) => entry.msg);
      expect(messages.slice(0, 2)).toEqual([
        "initialising the embedded datastore (first start only)",
        "initialised the embedded datastore",
      ]);
      expect(logs[1]?.ms).toBeTypeOf("number");
      expect(logs.find((entry) => entry.msg === "dbmon API listening")).toMatchObject({
        address,
        reference: `${address}/api/v1/docs`,
      });
      const leftovers = await finished(spawn("pgrep", ["-f", join(dataDir, "pg")]));
      expect(leftovers.stdout.trim()).toBe("");

      // A taken DBMON_EMBEDDED_PORT is one line naming it, and a failure exit.
      const blocker = createServer().listen(0, "127.0.0.1");
      await once(blocker, "listening");
      const port = (blocker.address() as AddressInfo).port;
      const refused = await finished(
        dbmon(["serve"], { DBMON_DATA_DIR: dataDir, DBMON_EMBEDDED_PORT: String(port) }),
      );
      blocker.close();
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `dbmon: 127.0.0.1:${port} is already in use, so the embedded PostgreSQL cannot start there: stop what listens there or set DBMON_EMBEDDED_PORT to another port\n`,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it.each(["collector", "alerter"])("runs the %s alone and stops it on SIGTERM", async (worker) => {
    const child = dbmon([worker], {
      DBMON_DATABASE_URL: database.url,
      DBMON_SECRET: "worker-test-secret-0123",
    });
    const done = finished(child);
    await new Promise<void>((resolve, reject) => {
      let buffered = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        buffered += chunk.toString();
        if (buffered.includes(`"msg":"dbmon ${worker} running"`)) {
          resolve();
        }
      });
      child.on("close", (code) => reject(new Error(`${worker} exited with ${code}: ${buffered}`)));
    });
    child.kill("SIGTERM");
    const result = await done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`"msg":"dbmon ${worker} stopped"`);
  });
});
