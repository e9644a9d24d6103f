import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRIVER_TYPE_OPTIONS, openDatastore } from "../src/index.js";
import { createTestDatabase, type TestDatabase, waitFor } from "../src/testing/index.js";

type Client = postgres.Sql<Record<string, postgres.PostgresType>>;

describe("the driver options of every dbmon session", () => {
  let database: TestDatabase;
  let admin: postgres.Sql;
  const clients: Client[] = [];
  const client = (options: postgres.Options<Record<string, postgres.PostgresType>> = {}) => {
    const session = postgres(database.url, {
      ...DRIVER_TYPE_OPTIONS,
      max: 1,
      onnotice: () => {},
      ...options,
    });
    clients.push(session);
    return session;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = postgres(database.url, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end({ timeout: 1 })));
    await admin.end();
    await database.drop();
  });

  it("names only array types, by the OIDs this server gives them", async () => {
    const oids = Object.values(DRIVER_TYPE_OPTIONS.types).flatMap((type) => type.from);
    const rows = await admin<{ oid: number; typcategory: string; typelem: number }[]>`
      select oid::int, typcategory, typelem::int from pg_type where oid = any(${oids}::oid[])`;
    expect(rows).toHaveLength(oids.length);
    for (const row of rows) {
      expect(row.typcategory, String(row.oid)).toBe("A");
      expect(row.typelem, String(row.oid)).not.toBe(0);
    }
  });

  it("reads built-in arrays as the driver's own type lookup would, NULL elements as null", async () => {
    const sql = client();
    const [row] = await sql.unsafe(`select
      array['a', 'b c', null, 'NULL', '"q"'] as texts,
      '{1,2}'::int4[] as ints, '{{1,2},{3,4}}'::int8[] as bigints, '{1.5,-2}'::float8[] as floats,
      '{t,f}'::bool[] as flags, array['2026-01-02T03:04:05Z'::timestamptz] as times,
      array['{"k": [1]}'::jsonb] as documents, '{}'::text[] as empty,
      array['pg_catalog'::name] as names, array['10.0.0.1'::inet] as addresses,
      array[1.10::numeric] as numerics, 7 as plain`);
    expect(row).toEqual({
      texts: ["a", "b c", null, "NULL", '"q"'],
      ints: [1, 2],
      bigints: [
        ["1", "2"],
        ["3", "4"],
      ],
      floats: [1.5, -2],
      flags: [true, false],
      times: [new Date("2026-01-02T03:04:05Z")],
      documents: [{ k: [1] }],
      empty: [],
      names: ["pg_catalog"],
      addresses: ["10.0.0.1"],
      numerics: ["1.10"],
      plain: 7,
    });
  });

  it("leaves arrays of other types in PostgreSQL's text form", async () => {
    await admin`create type mood as enum ('calm', 'busy')`;
    const [row] = await client().unsafe(`select array['calm', 'busy']::mood[] as moods`);
    expect(row?.moods).toBe("{calm,busy}");
  });

  it("lets a session be ended while its server stalls before answering, without an unhandled rejection", async () => {
    // A lock on pg_type stalls any new session's first catalog read: with the driver's own type
    // lookup, ending the session then rejected a promise nobody held, which ends a Node process
    // (and fails this test file under vitest).
    const locker = await admin.reserve();
    try {
      await locker`begin`;
      await locker`lock table pg_catalog.pg_type in access exclusive mode`;
      const sql = client({ connection: { statement_timeout: 60_000 } });
      const pending = sql.unsafe("select '{1}'::int4[] as stalled").then(
        () => "answered",
        (error: { code?: string }) => error.code,
      );
      await new Promise((done) => setTimeout(done, 300));
      await sql.end({ timeout: 0.2 });
      expect(await pending).toBe("CONNECTION_DESTROYED");
    } finally {
      await locker`rollback`;
      locker.release();
    }
  });

  it("fails only the first query of a datastore session whose backend is terminated while it connects", async () => {
    // porsager/postgres#1223: with the driver's type lookup, a backend terminated during a new
    // session's first query rejected the lookup's promise, which nothing holds, and Node ended the
    // process. A lock on pg_type holds the new session's first catalog read until it is terminated.
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    const datastore = await openDatastore({
      databaseUrl: database.url,
      dataDir: "",
      migrate: false,
      maxConnections: 1,
    });
    // A session of its own, its catalog caches warmed before the lock, terminates the backend.
    const killer = client();
    const terminate = () => killer<{ count: number }[]>`
      select count(pg_terminate_backend(pid))::int as count from pg_stat_activity
      where datname = ${database.name} and application_name = 'dbmon'`;
    await terminate();
    const locker = await admin.reserve();
    try {
      await locker`begin`;
      await locker`lock table pg_catalog.pg_type in access exclusive mode`;
      const first = datastore.sql`select '{1,2}'::int4[] as ints`.then(
        () => "answered",
        (error: { code?: string }) => error.code,
      );
      await waitFor("the datastore session's backend", async () => {
        const [terminated] = await terminate();
        return (terminated?.count ?? 0) > 0 ? true : undefined;
      });
      await locker`rollback`;
      // The backend goes with its FATAL 57P01 or, before it could send one, with its socket.
      expect(["57P01", "CONNECTION_CLOSED"]).toContain(await first);
      const [row] = await datastore.sql<{ ints: number[] }[]>`select '{1,2}'::int4[] as ints`;
      expect(row?.ints).toEqual([1, 2]);
      // An unhandled rejection reaches the listener on a later turn of the event loop.
      await new Promise((done) => setTimeout(done, 200));
      expect(unhandled).toEqual([]);
    } finally {
      await locker`rollback`;
      locker.release();
      await datastore.close();
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
