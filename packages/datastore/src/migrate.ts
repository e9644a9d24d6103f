import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { advisoryLocks } from "./advisory-locks.js";
import { DRIVER_TYPE_OPTIONS } from "./driver-types.js";
import { seedAlertRules } from "./seed/alert-rules.js";

/**
 * Migrations sit beside this module; a bundle that inlines the datastore copies them next to itself.
 */
export const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

/**
 * Applies pending migrations, then adds the built-in alert rules that are missing. Several processes may start at once: the advisory lock makes the
 * later ones wait and then find nothing left to do.
 */
export async function migrateDatastore(url: string): Promise<void> {
  const sql = postgres(url, { ...DRIVER_TYPE_OPTIONS, max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${advisoryLocks.migration})`;
    try {
      await migrate(drizzle({ client: sql }), { migrationsFolder });
      await seedAlertRules(sql);
    } finally {
      await sql`select pg_advisory_unlock(${advisoryLocks.migration})`;
    }
  } finally {
    await sql.end();
  }
}
