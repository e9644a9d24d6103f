import { createTestDatabase, type TestDatabase } from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findProbe } from "../src/index.js";
import { queryForVersion } from "../src/probes/types.js";

/*
 * pg_object_health's SQL on the suite's server (the embedded PostgreSQL 18, or PostgreSQL 15 with
 * TEST_DATABASE_URL), in a database of this file's own: each kind of finding from an object made to
 * have it, in a schema of its own, and nothing from a clean schema.
 */

type Finding = {
  kind: string;
  schemaname: string | null;
  object_name: string | null;
  value: number | null;
  detail: string | null;
};

describe("pg_object_health", () => {
  let db: TestDatabase;
  let session: postgres.Sql;
  let findings: Finding[];

  beforeAll(async () => {
    db = await createTestDatabase();
    session = postgres(db.url, { max: 1, onnotice: () => {} });
    await session.unsafe(`
      create schema seeded;
      create table seeded.t (id serial primary key, a int, b text);
      insert into seeded.t (a, b) select i % 10, repeat('x', 50) from generate_series(1, 50000) i;
      create index t_a on seeded.t (a);
      create index t_a_b on seeded.t (a, b);
      create table seeded.u (v int);
      insert into seeded.u values (1), (1);
      alter table seeded.t add constraint t_a_positive check (a >= 0) not valid;
      create sequence seeded.s as smallint maxvalue 100;
      select setval('seeded.s', 90);
      create table seeded.bloated (id int, pad text) with (autovacuum_enabled = false);
      insert into seeded.bloated select i, repeat('y', 100) from generate_series(1, 100000) i;
      delete from seeded.bloated where id % 4 <> 0;
      create schema clean;
      create table clean.t (id bigint generated always as identity primary key, a int, b text);
      insert into clean.t (a, b) select i, 'z' from generate_series(1, 20000) i;
      create index clean_t_a on clean.t (a);
      analyze`);
    // A unique index over duplicate values: CREATE INDEX CONCURRENTLY fails and leaves it invalid.
    await expect(session.unsafe("create unique index concurrently u_v on seeded.u (v)")).rejects.toThrow(
      /could not create unique index/,
    );
    const [version] = await session<
      { num: number }[]
    >`select current_setting('server_version_num')::int as num`;
    const probe = findProbe("pg_object_health");
    const sql = queryForVersion(probe?.queries ?? [], version?.num ?? 0) as string;
    findings = await session.unsafe<Finding[]>(sql);
  });

  afterAll(async () => {
    await session?.end({ timeout: 1 });
    await db?.drop();
  });

  const seeded = (kind: string) =>
    findings.filter((row) => row.kind === kind && row.schemaname === "seeded").map((row) => row.object_name);

  it("finds the invalid index, the duplicate index, the NOT VALID constraint, the sequence and the table bloat", () => {
    expect(seeded("invalid_index")).toEqual(["u_v"]);
    expect(seeded("duplicate_index")).toEqual(["t_a"]);
    expect(findings.find((row) => row.object_name === "t_a")?.detail).toBe("covered by t_a_b");
    expect(seeded("invalid_constraint")).toEqual(["t_a_positive"]);
    const sequence = findings.find((row) => row.kind === "sequence" && row.object_name === "s");
    expect(sequence?.value).toBe(90);
    expect(sequence?.detail).toBe("smallint, last value 90 of 100");
    const bloat = findings.find((row) => row.kind === "table_bloat" && row.object_name === "bloated");
    // Three rows in four deleted and not vacuumed: about three quarters of the table is waste.
    expect(
      Number(bloat?.value) / Number((bloat as unknown as { size_bytes: string }).size_bytes),
    ).toBeGreaterThan(0.6);
  });

  it("finds nothing in a clean schema, and marks the run", () => {
    expect(findings.filter((row) => row.schemaname === "clean")).toEqual([]);
    expect(findings.filter((row) => row.kind === "collected")).toHaveLength(1);
  });
});
