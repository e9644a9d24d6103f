import { listTimelineEvents, login } from "@dbmon/contract";
import type { Sql } from "@dbmon/datastore";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InputOf } from "./contract-types.js";
import { addConnection } from "./monitoring-support.js";
import {
  buildTestApp,
  createUser,
  TEST_PASSWORD,
  type TestApp,
  type TestUser,
  typedClient,
} from "./support.js";

type Query = NonNullable<InputOf<typeof listTimelineEvents>["query"]>;

/** Counts the queries sent through the datastore's `sql` (tagged templates and `unsafe`). */
function countQueries(t: TestApp): { readonly count: number; restore(): void } {
  const original = t.datastore.sql;
  let count = 0;
  const counting = new Proxy(original, {
    apply(target, self, args: unknown[]) {
      const [first] = args;
      if (Array.isArray(first) && "raw" in first) {
        count++;
      }
      return Reflect.apply(target as never, self, args);
    },
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === "unsafe" && typeof value === "function") {
        return (...args: unknown[]) => {
          count++;
          return Reflect.apply(value, target, args);
        };
      }
      return value;
    },
  }) as Sql;
  t.datastore.sql = counting;
  return {
    get count() {
      return count;
    },
    restore() {
      t.datastore.sql = original;
    },
  };
}

describe("timeline events: visibility and paging in SQL", () => {
  let t: TestApp;
  let viewer: TestUser;
  let visibleId: number;
  let hiddenId: number;
  const start = new Date(Date.now() - 3 * 3600 * 1000);
  const end = new Date(Date.now() + 60_000);
  const window: Query = { start_time: start.toISOString(), end_time: end.toISOString() };

  beforeAll(async () => {
    t = await buildTestApp();
    await createUser(t, "root", { superuser: true });
    viewer = await createUser(t, "viewer");
    const sql = t.datastore.sql;
    const [group] = await sql<
      { id: number }[]
    >`insert into cluster_groups (name) values ('hidden-group') returning id`;
    visibleId = await addConnection(t, "mine", { owner: "viewer", clusterId: 9001 });
    hiddenId = await addConnection(t, "theirs", { owner: "root", clusterId: 9002 });
    await sql`update clusters set group_id = ${group?.id as number} where id = 9002`;
    // 2,000 alerts fired on the viewer's connection, one a second, and 50 on a connection it cannot see.
    await sql`
      insert into alerts (alert_type, connection_id, title, severity, status, triggered_at)
      select 'threshold', ${visibleId}, 'Mine ' || n, 'warning', 'active', now() - make_interval(secs => n)
      from generate_series(1, 2000) as n`;
    await sql`
      insert into alerts (alert_type, connection_id, title, severity, status, triggered_at)
      select 'threshold', ${hiddenId}, 'Theirs ' || n, 'critical', 'active', now() - make_interval(secs => n)
      from generate_series(1, 50) as n`;
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    await sql`insert into blackouts (scope, start_time, end_time, reason, created_by)
      values ('estate', ${at(90)}, ${at(80)}, 'estate', 'root')`;
    await sql`insert into blackouts (scope, cluster_id, start_time, end_time, reason, created_by)
      values ('cluster', 9001, ${at(90)}, ${at(80)}, 'my cluster', 'root'),
        ('cluster', 9002, ${at(90)}, ${at(80)}, 'their cluster', 'root')`;
    await sql`insert into blackouts (scope, group_id, start_time, end_time, reason, created_by)
      values ('group', ${group?.id as number}, ${at(90)}, ${at(80)}, 'their group', 'root')`;
  });
  afterAll(() => t?.close());

  const list = (query: Query, token = viewer.token, range = window) =>
    typedClient(t, token).call(listTimelineEvents, { query: { ...range, ...query } });

  it("leaves out connections and blackout scopes the caller cannot see, counting before the limit", async () => {
    const page = await list({ limit: 1000 });
    expect(page.events).toHaveLength(1000);
    // 2,000 alerts, and the estate and own-cluster blackouts each starting and ending.
    expect(page.total_count).toBe(2004);
    expect(page.events.every((event) => event.connection_id !== hiddenId)).toBe(true);
    const all = await list({ event_types: "blackout_started,blackout_ended" });
    expect(all.events.map((event) => [event.event_type, event.server_name]).sort()).toEqual([
      ["blackout_ended", "All Servers"],
      ["blackout_ended", "All Servers"],
      ["blackout_started", "All Servers"],
      ["blackout_started", "All Servers"],
    ]);
    const asked = await list({ connection_id: hiddenId, event_types: "alert_fired" });
    expect(asked).toEqual({ events: [], total_count: 0 });
  });

  it("shows a superuser every blackout and every connection's events", async () => {
    const root = await typedClient(t).call(login, { body: { username: "root", password: TEST_PASSWORD } });
    const page = await list({ limit: 5 }, root.session_token);
    expect(page.total_count).toBe(2000 + 50 + 8);
    expect(page.events).toHaveLength(5);
    const times = page.events.map((event) => Date.parse(event.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  it("costs the same few queries for 2,000 events as for a handful", async () => {
    await list({ limit: 1 });
    // The last ten seconds: about ten alerts.
    const recent: Query = {
      start_time: new Date(Date.now() - 10_000).toISOString(),
      end_time: end.toISOString(),
    };
    const few = countQueries(t);
    try {
      expect(
        (await list({ event_types: "alert_fired", limit: 1000 }, viewer.token, recent)).total_count,
      ).toBeLessThan(20);
    } finally {
      few.restore();
    }
    const many = countQueries(t);
    let page: Awaited<ReturnType<typeof list>>;
    try {
      page = await list({ event_types: "alert_fired", limit: 1000 });
    } finally {
      many.restore();
    }
    expect(page.total_count).toBe(2000);
    expect(many.count).toBe(few.count);
    expect(many.count).toBeGreaterThanOrEqual(1);
    expect(many.count).toBeLessThanOrEqual(4);
  });

  it("reads every source without falling back", async () => {
    await list({});
    expect(t.logs.filter((line) => String(line.msg).startsWith("timeline:"))).toEqual([]);
  });
});
