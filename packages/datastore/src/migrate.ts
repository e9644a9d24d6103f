import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { seedAlertRules } from "./seed/alert-rules.js";

/**
 * Migrations sit beside this module; a bundle that inlines the datastore copies them next to itself.
 */
export const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

/** Arbitrary but fixed: every dbmon process takes this advisory lock before migrating. */
const MIGRATION_LOCK_KEY = 7_239_184_561;

/**
 * Applies pending migrations, then adds the built-in alert rules that are missing. Several processes may start at once: the advisory lock makes the
 * later ones wait and then find nothing left to do.
 */
export async function migrateDatastore(url: string): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    try {
      await migrate(drizzle({ client: sql }), { migrationsFolder });
      await seedAlertRules(sql);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`;
    }
  } finally {
    await sql.end();
  }
}
