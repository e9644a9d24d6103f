import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The built command line: the source through tsx would cost seconds of CPU per process. */
export const builtCli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

/** A `dbmon` command running as a child process, its JSON log lines kept for the test to read. */
export interface DbmonProcess {
  command: string;
  child: ChildProcess;
  /** Parsed log lines (pino writes JSON to standard output), oldest first. */
  logs: Record<string, unknown>[];
  /** Resolves with the first log line with this message (already written or to come). */
  logged(message: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  /** Standard error and unparsed output, for failure messages. */
  output(): string;
}

/**
 * Starts `dbmon <command>` from the build with exactly `env` as its configuration (no DBMON_*
 * variable of the test's own environment leaks in).
 */
export function startDbmon(command: string, env: Record<string, string>): DbmonProcess {
  if (!existsSync(builtCli)) {
    throw new Error(`${builtCli} is missing: run \`pnpm build\` first`);
  }
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("DBMON_") && !name.includes("API_KEY")),
  );
  const child = spawn(process.execPath, [builtCli, command], {
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: Record<string, unknown>[] = [];
  const raw: string[] = [];
  const waiting = new Set<() => void>();
  let pending = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        raw.push(line);
      }
    }
    for (const check of waiting) {
      check();
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => raw.push(chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const output = () => raw.join("\n").slice(-4000);
  return {
    command,
    child,
    logs,
    exited,
    output,
    logged(message, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const line = logs.find((entry) => entry.msg === message);
          if (line) {
            cleanup();
            resolve(line);
          }
        };
        const fail = (why: string) => {
          cleanup();
          reject(new Error(`dbmon ${command}: ${why} before logging "${message}"\n${output()}`));
        };
        const timer = setTimeout(() => fail(`${timeoutMs} ms passed`), timeoutMs);
        const onExit = () => fail("exited");
        const cleanup = () => {
          clearTimeout(timer);
          waiting.delete(check);
          child.off("exit", onExit);
        };
        waiting.add(check);
        child.once("exit", onExit);
        check();
      });
    },
  };
}

/** Stops every process still running: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopAll(processes: readonly DbmonProcess[], graceMs = 10_000): Promise<void> {
  await Promise.all(
    processes.map(async ({ child, exited }) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        return;
      }
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    }),
  );
}
