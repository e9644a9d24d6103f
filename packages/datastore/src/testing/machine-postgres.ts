import { existsSync } from "node:fs";
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

/** Whether the machine's PostgreSQL 15 binaries are installed. */
export function machinePostgresBinariesAvailable(): boolean {
  return existsSync(`${MACHINE_POSTGRES_BIN}/pg_basebackup`);
}
