import { execFile } from "node:child_process";
import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { findRunuser, machinePostgresBinariesMissing } from "../src/testing/machine-postgres.js";
import { postgresCommand, startPrimary } from "../src/testing/private-postgres.js";

const run = promisify(execFile);
const missing = machinePostgresBinariesMissing();
const savedPath = process.env.PATH;
const savedTmpdir = process.env.TMPDIR;

function restore(name: "PATH" | "TMPDIR", value: string | undefined): void {
  if (value === undefined) {
    delete process.env[name];
  } else {
    process.env[name] = value;
  }
}

afterEach(() => {
  restore("PATH", savedPath);
  restore("TMPDIR", savedTmpdir);
});

describe("private PostgreSQL servers for tests", () => {
  it.skipIf(process.getuid?.() !== 0 || !findRunuser("/usr/sbin:/sbin"))(
    "find runuser in /usr/sbin or /sbin when PATH lacks them",
    async () => {
      process.env.PATH = "/usr/bin:/bin";
      expect(findRunuser()).toMatch(/^\/(usr\/)?sbin\/runuser$/);
      if (!missing) {
        const [file, args] = postgresCommand("postgres", ["--version"]);
        expect(file).toMatch(/^\/(usr\/)?sbin\/runuser$/);
        const { stdout } = await run(file, args);
        expect(stdout).toMatch(/PostgreSQL\) 15\./);
      }
    },
  );

  it.skipIf(missing !== undefined)(
    `leave no dbmon-repl-* directory behind when a server fails to start${missing ? ` (skipped: ${missing})` : ""}`,
    { timeout: 60_000 },
    async () => {
      // A temporary directory of this test's own: others' tests may create dbmon-repl-* meanwhile.
      const scratch = await mkdtemp(join(tmpdir(), "dbmon-private-test-"));
      await chmod(scratch, 0o755);
      process.env.TMPDIR = scratch;
      try {
        await expect(startPrimary("replica", { no_such_setting_at_all: 1 })).rejects.toThrow();
        expect(await readdir(scratch)).toEqual([]);
      } finally {
        restore("TMPDIR", savedTmpdir);
        await rm(scratch, { recursive: true, force: true });
      }
    },
  );
});
