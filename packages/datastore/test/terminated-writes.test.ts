import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRIVER_TYPE_OPTIONS } from "../src/index.js";
import { createTestDatabase, type TestDatabase, waitFor } from "../src/testing/index.js";

/*
 * postgres.js batches small writes behind setImmediate; on a session whose backend was terminated
 * that write ran after the socket was gone and threw where nothing could catch it, ending the
 * process (porsager/postgres#1154, #1208; found by `pnpm test:faults`). With the patch in
 * patches/postgres@3.4.9.patch the query fails instead, and the session works again.
 */
describe("a query on a session whose backend was terminated", () => {
  let database: TestDatabase;
  let admin: postgres.Sql;
  let sql: postgres.Sql;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeAll(async () => {
    process.on("uncaughtException", onUncaught);
    database = await createTestDatabase();
    admin = postgres(database.url, { max: 1, onnotice: () => {} });
    sql = postgres(database.url, { ...DRIVER_TYPE_OPTIONS, max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end({ timeout: 1 });
    await admin?.end();
    await database?.drop();
    process.off("uncaughtException", onUncaught);
  });

  it("fails alone, without an uncaught exception, and the pool goes on", async () => {
    // A reserved session is not rotated away by the pool: the next write goes to its dead socket.
    await sql`select 1`;
    const reserved = await sql.reserve();
    const [{ pid } = { pid: 0 }] = await reserved<{ pid: number }[]>`select pg_backend_pid() as pid`;
    await admin`select pg_terminate_backend(${pid})`;
    await waitFor("the backend gone", async () =>
      (await admin`select 1 from pg_stat_activity where pid = ${pid}`).length === 0 ? true : undefined,
    );
    await new Promise((done) => setTimeout(done, 100));
    await expect(reserved`select 1`).rejects.toMatchObject({
      code: expect.stringMatching(/^(CONNECTION_CLOSED|57P01)$/),
    });
    await new Promise((done) => setTimeout(done, 100));
    expect(uncaught).toEqual([]);
    // Released, it is not handed to the pool's next query as if it were open.
    reserved.release();
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
    expect(await sql`select 2 as two`).toEqual([{ two: 2 }]);
  });
});
