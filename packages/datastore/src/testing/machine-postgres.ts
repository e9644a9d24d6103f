import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import postgres from "postgres";

/**
 * The machine's own PostgreSQL 15, which collector tests monitor (beside the embedded 18) and
 * replication tests take binaries from. CI machines have it; a machine with only Node.js does not,
 * and there those tests are skipped (the rest of the suite runs on the embedded server).
 */
export const MACHINE_POSTGRES_URL =
  process.env.DBMON_TEST_MACHINE_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** Binaries of the machine's PostgreSQL 15 (initdb, pg_basebackup, ...). */
export const MACHINE_POSTGRES_BIN = "/usr/lib/postgresql/15/bin";

/** Whether the machine's PostgreSQL answers. */
export async function machinePostgresAvailable(): Promise<boolean> {
  const sql = postgres(MACHINE_POSTGRES_URL, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/**
 * `runuser`, which runs the binaries as the `postgres` OS user when the tests run as root. It lives in
 * /usr/sbin or /sbin, which a non-login root shell may not have on PATH, so those are searched too.
 */
export function findRunuser(path = process.env.PATH ?? ""): string | undefined {
  const directories = [...path.split(delimiter).filter(Boolean), "/usr/sbin", "/sbin", "/usr/bin", "/bin"];
  return directories.map((directory) => join(directory, "runuser")).find((file) => existsSync(file));
}

/** Why servers of the machine's PostgreSQL 15 cannot run here, or undefined when they can. */
export function machinePostgresBinariesMissing(): string | undefined {
  if (!existsSync(`${MACHINE_POSTGRES_BIN}/pg_basebackup`)) {
    return `PostgreSQL 15 binaries not found in ${MACHINE_POSTGRES_BIN}`;
  }
  if (process.getuid?.() === 0 && !findRunuser()) {
    return "running as root needs runuser (not found on PATH, in /usr/sbin or in /sbin)";
  }
  return undefined;
}

const reported = new Set<string>();

/**
 * Whether the machine's PostgreSQL 15 binaries can run servers here. Tests that need them are skipped
 * otherwise, and the reason is printed once, so a skip is never silent.
 */
export function machinePostgresBinariesAvailable(): boolean {
  const missing = machinePostgresBinariesMissing();
  if (missing && !reported.has(missing)) {
    reported.add(missing);
    console.warn(`skipping tests that run private PostgreSQL servers: ${missing}`);
  }
  return missing === undefined;
}
