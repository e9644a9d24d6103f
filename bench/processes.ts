// The child processes of the process benchmarks (fleet, load, soak): started from a bench script,
// stopped with SIGTERM then SIGKILL, and a list of undo tasks that runs whatever happens.
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export type Child = ChildProcess & { pid: number };

/**
 * `bench/<name>-process.ts` in a child, resolved when it prints a line starting with `<name> started`
 * (with what follows it); every other line of its stdout goes to `onLine`.
 */
export async function startChild(
  name: string,
  env: NodeJS.ProcessEnv,
  onLine: (line: string) => void = () => {},
): Promise<{ child: Child; started: string }> {
  const script = fileURLToPath(new URL(`./${name}-process.ts`, import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = `${name} started`;
  const started = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      if (line.startsWith(ready)) {
        resolve(line.slice(ready.length).trim());
      } else {
        onLine(line);
      }
    });
    child.once("exit", (code) => reject(new Error(`${name} exited with ${code}`)));
  });
  return { child: child as Child, started };
}

/** SIGTERM, then SIGKILL when the child has not exited 15 s later. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const exited = new Promise((done) => child.once("exit", done));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Whether a child has exited (a benchmark stops when one of its processes dies). */
export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Open file descriptors of a process (Linux). */
export function descriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The datastore URL of a child, its sessions named so that their CPU and count can be told apart. */
export function namedSessions(url: string, application: string): string {
  const named = new URL(url);
  named.searchParams.set("application_name", application);
  return named.toString();
}

/** The benchmark was stopped by a signal. */
export class Interrupted extends Error {}

/**
 * Tasks that undo the setup, run last first whatever happens (errors, Ctrl-C). A signal does not
 * stop the benchmark at once, which could leave a cluster being set up behind: the benchmark stops at
 * its next `checkpoint()`, and then cleans up.
 */
export class Cleanup {
  private readonly tasks: { name: string; task: () => Promise<unknown> }[] = [];
  /** The signal that stopped the benchmark, if one did. */
  interruptedBy: string | undefined;

  constructor(private readonly benchmark: string) {}

  add(name: string, task: () => Promise<unknown>): void {
    this.tasks.push({ name, task });
  }

  interrupt(signal: string): void {
    console.error(`${this.benchmark}: ${signal}, stopping at the next checkpoint, then cleaning up`);
    this.interruptedBy = signal;
  }

  checkpoint(): void {
    if (this.interruptedBy) {
      throw new Interrupted(this.interruptedBy);
    }
  }

  async run(): Promise<void> {
    for (const { name, task } of this.tasks.splice(0).reverse()) {
      await task().catch((error: unknown) =>
        console.error(`${this.benchmark} cleanup: ${name} failed: ${error}`),
      );
    }
  }

  /**
   * Runs `measure` with this cleanup, Ctrl-C and SIGTERM turned into a stop at the next checkpoint;
   * cleans up whatever happens and exits 130 when interrupted.
   */
  async around(measure: (cleanup: Cleanup) => Promise<void>): Promise<void> {
    const interrupted = (signal: string) => this.interrupt(signal);
    process.once("SIGINT", interrupted);
    process.once("SIGTERM", interrupted);
    try {
      await measure(this);
    } catch (error) {
      // Ctrl-C reaches the children and a running initdb too: what fails then is no news.
      if (!this.interruptedBy) {
        throw error;
      }
    } finally {
      await this.run();
      process.off("SIGINT", interrupted);
      process.off("SIGTERM", interrupted);
    }
    if (this.interruptedBy) {
      process.exit(130);
    }
  }
}
