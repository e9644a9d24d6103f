import { listAlerts, listBlackoutSchedules, listBlackouts } from "@dbmon/contract";
import { type Datastore, drizzleOf } from "@dbmon/datastore";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.js";
import { createServices } from "../src/create-services.js";
import type { App } from "../src/http/app-type.js";
import { buildTestApp, createUser, type TestApp, type TestUser, typedClient } from "./support.js";
import { undeclaredStatuses } from "./undeclared-statuses.js";

/**
 * Listing blackouts, schedules and alerts filters what a caller sees and pages in the datastore: the
 * number of queries a listing costs does not depend on the number of rows.
 */
let t: TestApp;
/** An API on the same database whose datastore client counts every query it sends. */
const counted = { app: undefined as unknown as App, sql: undefined as postgres.Sql | undefined, queries: 0 };
let viewer: TestUser;
let admin: TestUser;
let visibleId: number;
let hiddenId: number;
let visibleClusterId: number;
let visibleGroupId: number;
let hiddenClusterId: number;

async function addConnection(name: string, owner: string, clusterId: number | null): Promise<number> {
  const [row] = await t.datastore.sql<{ id: number }[]>`
    insert into connections (name, host, port, database_name, username, owner_username, is_shared, cluster_id)
    values (${name}, '127.0.0.1', 5432, 'postgres', 'postgres', ${owner}, false, ${clusterId}) returning id`;
  return (row as { id: number }).id;
}

/** `n` blackouts spread over every kind of scope, visible and hidden, and `n` alerts on both connections. */
async function addRows(n: number): Promise<void> {
  await t.datastore.sql`
    insert into blackouts (scope, group_id, cluster_id, connection_id, reason, start_time, end_time, created_by)
    select s.scope,
      case when s.scope = 'group' then ${visibleGroupId}::int end,
      case when s.scope = 'cluster' then (case when i % 2 = 0 then ${visibleClusterId}::int else ${hiddenClusterId}::int end) end,
      case when s.scope = 'server' then (case when i % 2 = 0 then ${visibleId}::int else ${hiddenId}::int end) end,
      'load', now() - make_interval(mins => i), now() + interval '1 hour', 'test'
    from generate_series(1, ${n}) as i
    cross join lateral (select (array['estate', 'group', 'cluster', 'server', 'server'])[1 + i % 5] as scope) s`;
  await t.datastore.sql`
    insert into alerts (alert_type, connection_id, severity, title, status, triggered_at)
    select 'connection', case when i % 2 = 0 then ${visibleId}::int else ${hiddenId}::int end, 'warning',
      'load', 'cleared', now() - make_interval(secs => i)
    from generate_series(1, ${n}) as i`;
}

/** The typed client on the counting API. */
type CountedClient = ReturnType<typeof typedClient>;

async function queriesOfEach(
  calls: ((api: CountedClient) => Promise<unknown>)[],
  user: TestUser,
): Promise<number[]> {
  const counts: number[] = [];
  for (const call of calls) {
    counts.push((await queriesOf(call, user)).count);
  }
  return counts;
}

/** Queries one call costs once the caller's access is cached (a first call warms it). */
async function queriesOf<T>(
  call: (api: CountedClient) => Promise<T>,
  user: TestUser,
): Promise<{ count: number; body: T }> {
  const api = typedClient({ ...t, app: counted.app }, user.token);
  await call(api);
  counted.queries = 0;
  const body = await call(api);
  return { count: counted.queries, body };
}

const listings = [
  (api: CountedClient) => api.call(listBlackouts, { query: { limit: 1000 } }),
  (api: CountedClient) => api.call(listAlerts, { query: { limit: 1000 } }),
  (api: CountedClient) => api.call(listBlackoutSchedules),
];

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t, "root", { superuser: true });
  viewer = await createUser(t, "viewer");
  const [group] = await t.datastore.sql<{ id: number }[]>`
    insert into cluster_groups (name) values ('visible group') returning id`;
  visibleGroupId = (group as { id: number }).id;
  const [cluster] = await t.datastore.sql<{ id: number }[]>`
    insert into clusters (name, group_id) values ('visible cluster', ${visibleGroupId}) returning id`;
  visibleClusterId = (cluster as { id: number }).id;
  const [other] = await t.datastore.sql<{ id: number }[]>`
    insert into clusters (name) values ('hidden cluster') returning id`;
  hiddenClusterId = (other as { id: number }).id;
  visibleId = await addConnection("visible", "viewer", visibleClusterId);
  hiddenId = await addConnection("hidden", "root", hiddenClusterId);

  const sql = postgres(t.database.url, {
    max: 4,
    onnotice: () => {},
    debug: () => {
      counted.queries += 1;
    },
  });
  const datastore: Datastore = { ...t.datastore, sql, db: drizzleOf(sql), close: () => sql.end() };
  const services = await createServices({
    config: t.services.config,
    datastore,
    logger: t.services.logger,
    clock: t.services.clock,
    secretKey: t.services.secretKey,
  });
  counted.app = createApp(services, { onUndeclaredStatus: (report) => undeclaredStatuses.push(report) });
  counted.sql = sql;
}, 60_000);

afterAll(async () => {
  await counted.sql?.end();
  await t?.close();
});

describe("listing costs a constant number of queries", () => {
  it("whether there are 10 rows or 2,010 of blackouts and alerts", async () => {
    await addRows(10);
    const few = await queriesOfEach(listings, viewer);
    await addRows(2_000);
    const many = await queriesOfEach(listings, viewer);
    expect(many).toEqual(few);
    // The page and the total; the caller's access is cached.
    expect(Math.min(...many)).toBeGreaterThan(0);
    expect(Math.max(...many)).toBeLessThanOrEqual(3);
    expect(Math.max(...(await queriesOfEach(listings, admin)))).toBeLessThanOrEqual(3);
  });

  it("and lists exactly the rows the caller sees, paged in the datastore", async () => {
    // Of every five blackouts: estate, the visible group, a cluster (alternately visible), two servers
    // (alternately visible).
    const [expected] = await t.datastore.sql<{ blackouts: number; alerts: number }[]>`
      select
        (select count(*)::int from blackouts where scope in ('estate', 'group')
          or cluster_id = ${visibleClusterId} or connection_id = ${visibleId}) as blackouts,
        (select count(*)::int from alerts where connection_id = ${visibleId}) as alerts`;
    const { body: blackouts } = await queriesOf(
      (api) => api.call(listBlackouts, { query: { limit: 1000, offset: 5 } }),
      viewer,
    );
    expect(blackouts.total_count).toBe(expected?.blackouts);
    expect(blackouts.blackouts).toHaveLength(1000);
    expect(
      blackouts.blackouts.some((b) => b.connection_id === hiddenId || b.cluster_id === hiddenClusterId),
    ).toBe(false);
    const { body: alerts } = await queriesOf(
      (api) => api.call(listAlerts, { query: { limit: 1000 } }),
      viewer,
    );
    expect(alerts.total).toBe(expected?.alerts);
    expect(new Set(alerts.alerts.map((a) => a.connection_id))).toEqual(new Set([visibleId]));
    const { body: all } = await queriesOf((api) => api.call(listBlackouts, { query: { limit: 1 } }), admin);
    expect(all.total_count).toBe(2_010);
  });
});
