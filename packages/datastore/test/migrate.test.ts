import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatastore } from "../src/index.js";
import { createTestDatabase, databaseUrl, type TestDatabase } from "../src/testing/index.js";

describe("migrations", () => {
  let server: postgres.Sql;
  let fresh: string;
  let testDb: TestDatabase;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    server = postgres(testDb.serverUrl, { max: 1, onnotice: () => {} });
    fresh = `${testDb.name}_empty`;
    await server.unsafe(`create database "${fresh}"`);
  });

  afterAll(async () => {
    await server.unsafe(`drop database if exists "${fresh}" with (force)`);
    await server.end();
    await testDb.drop();
  });

  it("two processes migrating an empty database at once both succeed", async () => {
    const url = databaseUrl(testDb.serverUrl, fresh);
    await Promise.all([migrateDatastore(url), migrateDatastore(url), migrateDatastore(url)]);
    const sql = postgres(url, { max: 1 });
    const applied = await sql`select count(*)::int as n from drizzle.__drizzle_migrations`;
    const tables =
      await sql`select count(*)::int as n from information_schema.tables where table_name = 'system_settings'`;
    await sql.end();
    expect(tables[0]?.n).toBe(1);
    expect(applied[0]?.n).toBeGreaterThan(0);
  });

  it("running the migrations again changes nothing", async () => {
    const sql = postgres(testDb.url, { max: 1 });
    const before = await sql`select hash, created_at from drizzle.__drizzle_migrations order by id`;
    await migrateDatastore(testDb.url);
    await migrateDatastore(testDb.url);
    const after = await sql`select hash, created_at from drizzle.__drizzle_migrations order by id`;
    await sql.end();
    expect(after).toEqual(before);
  });
});
