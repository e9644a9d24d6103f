import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  collectedDatabaseJoin,
  collectsDatabase,
  databaseSources,
  readServerDirectory,
  readsDatabaseRow,
  sameReadingConnections,
  sameServer,
  serverAddress,
} from "../src/index.js";
import { createTestDatabase, type TestDatabase } from "../src/testing/index.js";

describe("which connection collects each database of a server", () => {
  let testDb: TestDatabase;
  let sql: postgres.Sql;
  const databases = ["postgres", "app", "other", "archive", "solo"];

  beforeAll(async () => {
    testDb = await createTestDatabase();
    sql = postgres(testDb.url, { max: 2, onnotice: () => {} });
    const register = async (
      name: string,
      host: string,
      hostaddr: string | null,
      database: string,
      monitored = true,
    ) => {
      await sql`
        insert into connections (name, host, hostaddr, port, database_name, username, owner_username, is_monitored)
        values (${name}, ${host}, ${hostaddr}, 5432, ${database}, 'monitor', 'admin', ${monitored})`;
    };
    // One server registered four times (app twice, archive no longer monitored), one alone, and one
    // whose only connection is not monitored.
    await register("main", "db.example.com", null, "postgres");
    await register("app", "db.example.com", null, "app");
    await register("app-again", "db.example.com", null, "app");
    await register("archive", "db.example.com", null, "archive", false);
    await register("solo", "db.example.com", "10.0.0.9", "solo");
    await register("retired", "old.example.com", null, "postgres", false);
  });

  afterAll(async () => {
    await sql?.end();
    await testDb?.drop();
  });

  it("in TypeScript: own databases, and the unregistered ones for the server's first connection", async () => {
    const directory = await readServerDirectory(sql);
    const connections = await sql<
      {
        id: number;
        name: string;
        host: string;
        hostaddr: string | null;
        port: number;
        database_name: string;
      }[]
    >`
      select id, name, host, hostaddr, port, database_name from connections order by id`;
    const collected = Object.fromEntries(
      connections.map((connection) => [
        connection.name,
        databases.filter((database) =>
          collectsDatabase(directory.get(serverAddress(connection)), connection, database),
        ),
      ]),
    );
    expect(collected).toEqual({
      main: ["postgres", "other", "archive", "solo"],
      app: ["app"],
      "app-again": ["app"],
      archive: ["archive"],
      // Another address (hostaddr given): a server of its own.
      solo: databases,
      retired: databases,
    });
  });

  it("speaks for a server through its lowest-id monitored connection, and SQL groups the same servers", async () => {
    const names = new Map(
      (await sql<{ id: number; name: string }[]>`select id, name from connections`).map((row) => [
        row.id,
        row.name,
      ]),
    );
    const directory = await readServerDirectory(sql);
    const servers = [...directory.values()].map((entry) => ({
      speaker: names.get(entry.firstConnectionId),
      connections: entry.connectionIds.map((id) => names.get(id)),
    }));
    // Not monitored: no member of its server (archive), no server at all (retired).
    expect(servers).toEqual([
      { speaker: "main", connections: ["main", "app", "app-again"] },
      { speaker: "solo", connections: ["solo"] },
    ]);
    const pairs = await sql.unsafe<{ name: string; same: string[] }[]>(
      `select a.name, array_agg(b.name order by b.id) as same
       from connections a join connections b on ${sameServer("a", "b")} group by a.name order by a.name`,
    );
    expect(Object.fromEntries(pairs.map((row) => [row.name, row.same]))).toEqual({
      main: ["main", "app", "app-again", "archive"],
      app: ["main", "app", "app-again", "archive"],
      "app-again": ["main", "app", "app-again", "archive"],
      archive: ["main", "app", "app-again", "archive"],
      solo: ["solo"],
      retired: ["retired"],
    });
  });

  it("in SQL, the same", async () => {
    const rows = await sql.unsafe<{ name: string; databases: string[] }[]>(
      `select c.name, array_agg(l.datname order by l.position) as databases
       from (select id as connection_id from connections) k
       cross join lateral (select k.connection_id, d.datname, d.position
                           from unnest($1::text[]) with ordinality as d(datname, position)) l
       ${collectedDatabaseJoin("l", "datname")}
       join connections c on c.id = l.connection_id
       group by c.name`,
      [databases],
    );
    const collected = Object.fromEntries(rows.map((row) => [row.name, row.databases]));
    expect(collected).toEqual({
      main: ["postgres", "other", "archive", "solo"],
      app: ["app"],
      "app-again": ["app"],
      archive: ["archive"],
      solo: databases,
      retired: databases,
    });
  });

  it("finds the connections that read the same rows of their server as another, for readers of many", async () => {
    const connections = await sql<
      { id: number; name: string }[]
    >`select id, name from connections order by id`;
    const nameOf = new Map(connections.map((connection) => [connection.id, connection.name]));
    const readsAs = await sameReadingConnections(
      sql,
      connections.map((connection) => connection.id),
    );
    expect(Object.fromEntries([...readsAs].map(([id, as]) => [nameOf.get(id), nameOf.get(as)]))).toEqual({
      main: "main",
      app: "main",
      // A second connection to app reads app from itself; a connection not monitored, its own.
      "app-again": "app-again",
      archive: "archive",
      solo: "solo",
      retired: "retired",
    });
    // What each reads, were every connection to hold rows of every database: the same (source,
    // database) pairs as the connection it reads as.
    const reads = async (id: number) =>
      sql.unsafe<{ source_id: number; datname: string }[]>(
        `select c.source_id, d.datname from ${databaseSources("array[$1::int]")} c
         cross join unnest($2::text[]) d(datname)
         where ${readsDatabaseRow("d", "c", "datname")}
         order by 1, 2`,
        [id, databases],
      );
    for (const [id, as] of readsAs) {
      expect(await reads(id), nameOf.get(id)).toEqual(await reads(as));
    }
  });
});
