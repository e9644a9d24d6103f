import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtCli } from "./dbmon-processes.js";

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `dbmon serve` with exactly `env` (plus PATH and HOME) until it exits by itself. */
function serveUntilExit(env: Record<string, string>, command = [process.execPath, builtCli, "serve"]) {
  const [file, ...args] = command as [string, ...string[]];
  const child = spawn(file, args, {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 50_000);
  return new Promise<Finished>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

function listen(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({ server, port: typeof address === "object" && address ? address.port : 0 });
    });
  });
}

/** `script` runs a command on a pseudo-terminal, as a person's shell would (util-linux). */
const scriptAvailable = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" });
    return existsSync("/dev/ptmx");
  } catch {
    return false;
  }
})();

// A port that is taken ends `serve` after the datastore opened: its log lines, then the one error line.
describe("the first run: a taken port and the log format", { timeout: 60_000 }, () => {
  let database: TestDatabase;
  let taken: { server: Server; port: number };
  beforeAll(async () => {
    database = await createTestDatabase();
    taken = await listen();
  });
  afterAll(async () => {
    taken.server.close();
    await database.drop();
  });
  const env = () => ({
    DBMON_DATABASE_URL: database.url,
    DBMON_PORT: String(taken.port),
    DBMON_COLLECTOR: "false",
    // Otherwise the first start prints the generated password between the log lines.
    DBMON_ADMIN_PASSWORD: "first-run-admin-password-1",
    // Else a key file would be written to ./.dbmon of the working directory.
    DBMON_SECRET: "first-run-test-secret-0123",
  });

  it("names DBMON_PORT in one line, without a stack, and exits non-zero; logs are JSON lines off a terminal", async () => {
    const result = await serveUntilExit(env());
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `dbmon: 127.0.0.1:${taken.port} is already in use: stop what listens there or set DBMON_PORT to another port\n`,
    );
    const lines = result.stdout.trim().split("\n");
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(JSON.parse(line)).toMatchObject({ name: "dbmon", level: expect.any(Number) });
    }
  });

  it("writes readable lines with DBMON_LOG_FORMAT=pretty, and JSON with DBMON_LOG_FORMAT=json", async () => {
    const pretty = await serveUntilExit({ ...env(), DBMON_LOG_FORMAT: "pretty" });
    expect(pretty.code).toBe(1);
    expect(pretty.stdout).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: alerter started \{"instanceId":"[^"]+"\}$/m);
    expect(pretty.stdout).not.toContain('"level":');
    // Not a terminal: no colours.
    expect(pretty.stdout).not.toContain("\u001b[");
    const json = await serveUntilExit({ ...env(), DBMON_LOG_FORMAT: "json" });
    expect(json.stdout).toContain('"msg":"alerter started"');
  });

  it.runIf(scriptAvailable)("writes readable lines on a terminal by default", async () => {
    const command = `${process.execPath} ${builtCli} serve`;
    const result = await serveUntilExit(env(), [
      "script",
      "--quiet",
      "--return",
      "--command",
      command,
      "/dev/null",
    ]);
    expect(result.stdout).toMatch(/INFO.*alerter started/);
    expect(result.stdout).not.toContain('"level":');
    expect(result.stdout).toContain("set DBMON_PORT to another port");
  });
});
