import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import "./context.js";
import { databaseUrl } from "./urls.js";

export interface TestDatabase {
  /** Name of the fresh database. */
  name: string;
  /** URL of the fresh, migrated database. */
  url: string;
  /** URL of the server's `postgres` database, for tests that create more databases. */
  serverUrl: string;
  drop(): Promise<void>;
}

/**
 * A fresh migrated database of this test file's own, cloned from the run's template, so no test
 * shares mutable data with another.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject("testServerUrl");
  const template = inject("testTemplate");
  const name = `dbmon_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await cloneTemplate(admin, name, template);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: databaseUrl(serverUrl, name),
    serverUrl,
    async drop() {
      const dropper = postgres(serverUrl, { max: 1, onnotice: () => {} });
      try {
        await dropper.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

async function cloneTemplate(admin: postgres.Sql, name: string, template: string): Promise<void> {
  // Two files cloning at the same instant can see each other on the template; try again shortly.
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.unsafe(`create database "${name}" template "${template}"`);
      return;
    } catch (error) {
      const busy = error instanceof Error && /being accessed by other users/.test(error.message);
      if (!busy || attempt >= 20) {
        throw error;
      }
      await new Promise((done) => setTimeout(done, 100 * attempt));
    }
  }
}
