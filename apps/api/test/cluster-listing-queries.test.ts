import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, createUser, requestJson, type TestApp, type TestUser } from "./support.js";

/**
 * Listings filter by the caller's visible connections in SQL: however many rows there are, a
 * listing costs the same few queries (counted with postgres.js's `debug` hook on the API's pool).
 */
describe("listing connections, clusters and groups", () => {
  const size = 2000;
  let t: TestApp;
  let viewer: TestUser;
  let queries = 0;

  beforeAll(async () => {
    t = await buildTestApp();
    await createUser(t, "root", { superuser: true });
    viewer = await createUser(t, "viewer");
    // Groups g0001…g2000 hold one cluster each, group "big" 2000 more; every cluster holds one
    // connection, and the viewer owns (so sees) every other one.
    await t.datastore.sql`
      insert into cluster_groups (name, owner_username)
      select 'g' || lpad(i::text, 4, '0'), 'root' from generate_series(1, ${size}) i
      union all select 'big', 'root'`;
    await t.datastore.sql`
      insert into clusters (name, group_id, owner_username)
      select 'k' || lpad(i::text, 4, '0'),
        (select id from cluster_groups where name = case when i <= ${size} then 'g' || lpad(i::text, 4, '0') else 'big' end),
        'root'
      from generate_series(1, ${2 * size}) i`;
    await t.datastore.sql`
      insert into connections (name, host, port, database_name, username, owner_username, is_shared, cluster_id)
      select 'c' || lpad(i::text, 4, '0'), 'db' || i || '.example.net', 5432, 'postgres', 'postgres',
        case when i % 2 = 1 then 'viewer' else 'root' end, false,
        (select id from clusters where name = 'k' || lpad(i::text, 4, '0'))
      from generate_series(1, ${2 * size}) i`;
    t.datastore.sql.options.debug = () => {
      queries += 1;
    };
  }, 120_000);
  afterAll(async () => {
    t.datastore.sql.options.debug = false;
    await t.close();
  });

  /** The body of a listing and how many queries answering it took. */
  async function counted(path: string): Promise<{ body: unknown[]; queries: number }> {
    // A first call fills the per-process access caches; the second is the one counted.
    await requestJson(t.app, path, { token: viewer.token });
    queries = 0;
    const res = await requestJson(t.app, path, { token: viewer.token });
    expect(res.status).toBe(200);
    // The hook sees the API's queries at all (at least the listing's own).
    expect(queries).toBeGreaterThan(0);
    return { body: (await res.json()) as unknown[], queries };
  }

  it("GET /connections", async () => {
    const listed = await counted("/api/v1/connections");
    expect(listed.body).toHaveLength(size);
    expect(listed.queries).toBeLessThanOrEqual(5);
  });

  it("GET /cluster-groups", async () => {
    const listed = await counted("/api/v1/cluster-groups");
    // Half of the small groups, and "big".
    expect(listed.body).toHaveLength(size / 2 + 1);
    expect(listed.queries).toBeLessThanOrEqual(5);
  });

  it("GET /cluster-groups/{id}/clusters", async () => {
    const [big] = await t.datastore.sql<{ id: number }[]>`select id from cluster_groups where name = 'big'`;
    const listed = await counted(`/api/v1/cluster-groups/${big?.id}/clusters`);
    expect(listed.body).toHaveLength(size / 2);
    expect(listed.queries).toBeLessThanOrEqual(5);
  });

  it("GET /clusters/list", async () => {
    const listed = await counted("/api/v1/clusters/list");
    expect(listed.body).toHaveLength(size);
    expect(listed.queries).toBeLessThanOrEqual(5);
  });

  it("GET /clusters", async () => {
    const listed = await counted("/api/v1/clusters");
    expect(listed.body).toHaveLength(size / 2 + 1);
    expect(listed.queries).toBeLessThanOrEqual(10);
  });
});
