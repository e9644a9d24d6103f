import {
  machinePostgresBinariesAvailable,
  startLoopbackPrimary,
  type TestServer,
} from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbmonProcess } from "../dbmon-processes.js";
import { duplicateDeliveries, expectAlive, type Fleet, sleep, startFleet, waitLong } from "./support.js";

/*
 * Every dbmon process through its datastore's faults: `dbmon serve`, `dbmon collector` and
 * `dbmon alerter` as real processes on a private PostgreSQL, which is restarted, and whose dbmon
 * sessions are all terminated, under them.
 */
describe.skipIf(!machinePostgresBinariesAvailable())("the datastore restarts or ends its sessions", () => {
  let fleet: Fleet;
  let monitored: TestServer;
  let api: string;
  let token: string;
  let collector: DbmonProcess;
  let healthy: number;
  let broken: number;

  const INTERVAL_SECONDS = 1;

  beforeAll(async () => {
    [fleet, monitored] = await Promise.all([
      startFleet({ DBMON_ADMIN_USERNAME: "admin", DBMON_ADMIN_PASSWORD: "fault-suite-Admin-1" }),
      startLoopbackPrimary(),
    ]);
    const serve = await fleet.start("serve");
    api = String((await serve.logged("dbmon API listening")).address);
    collector = await fleet.start("collector");
    await fleet.start("alerter");
    const login = await fetch(`${api}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: "fault-suite-Admin-1" }),
    });
    token = ((await login.json()) as { session_token: string }).session_token;
    await fleet.onlyProbes(["pg_connectivity"], INTERVAL_SECONDS);
    healthy = await fleet.addConnection("healthy", monitored.port);
    // Nothing listens on port 1: a connection alert that fires, and clears once the port is fixed.
    broken = await fleet.addConnection("broken", 1);
    await waitLong("the broken connection's alert sent", async () =>
      fleet.deliveries.some((delivery) => delivery.event === "alert_fire") ? true : undefined,
    );
  });

  afterAll(async () => {
    await fleet?.close();
    await monitored?.remove();
  });

  const connections = () =>
    fetch(`${api}/api/v1/connections`, { headers: { authorization: `Bearer ${token}` } });
  const collectedSince = async (since: number) =>
    (
      await fleet.sql<{ at: number }[]>`
        select (extract(epoch from collected_at) * 1000)::float8 as at from metrics.pg_connectivity
        where connection_id = ${healthy} and collected_at >= ${new Date(since).toISOString()}::timestamptz
        order by collected_at`
    ).map((row) => row.at);

  it("keeps every process running through a restart: 503 meanwhile, the collected data kept, alerts sent once", async () => {
    expect((await connections()).status).toBe(200);
    await fleet.sql.end({ timeout: 1 });
    const stoppedAt = Date.now();
    await fleet.datastore.stop();
    const down = await connections();
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ error: "Datastore unavailable" });
    // Longer than a lease (4 s): the leases lapse while no one can renew them.
    await sleep(6_000);
    const startedAt = Date.now();
    await fleet.datastore.start();
    await fleet.reconnect();
    expectAlive(fleet.processes);

    await waitLong("the API answering again", async () =>
      (await connections()).status === 200 ? true : undefined,
    );
    await collector.logged("datastore back: the collected runs kept in memory are stored", 30_000);
    // What was collected while the datastore was down was stored after, at its rhythm.
    const during = (await collectedSince(stoppedAt)).filter((at) => at < startedAt);
    expect(during.length).toBeGreaterThanOrEqual(4);
    const all = await collectedSince(stoppedAt - 5_000);
    expect(new Set(all).size).toBe(all.length);
    // The collector holds its connections again, and goes on collecting.
    const leases = await fleet.sql<{ connection_id: number; holder: string }[]>`
      select connection_id, holder from collector_leases where expires_at > now() order by connection_id`;
    expect(leases.map((lease) => lease.connection_id)).toEqual([healthy, broken]);
    const backAt = Date.now();
    await waitLong("collections after the restart", async () =>
      (await collectedSince(backAt)).length >= 2 ? true : undefined,
    );

    // The alerter resumed: fixing the broken connection clears its alert, and every notification of
    // every alert went out once.
    await fleet.sql`update connections set port = ${monitored.port} where id = ${broken}`;
    await waitLong("the clear sent", async () =>
      fleet.deliveries.some((delivery) => delivery.event === "alert_clear") ? true : undefined,
    );
    await sleep(3_000);
    expect(duplicateDeliveries(fleet.deliveries)).toEqual([]);
    expectAlive(fleet.processes);
  });

  it("keeps every process running when each of their datastore sessions is terminated", async () => {
    // A new alert to send, while sessions are cut under every pass.
    await fleet.sql`update connections set port = 1 where id = ${broken}`;
    const before = fleet.deliveries.length;
    const cutAt = Date.now();
    for (let round = 0; round < 3; round++) {
      const sessions = (
        await fleet.sql<{ pid: number }[]>`
          select pid from pg_stat_activity
          where pid <> pg_backend_pid() and backend_type = 'client backend' and application_name like 'dbmon%'`
      ).map((session) => session.pid);
      expect(sessions.length).toBeGreaterThan(0);
      await fleet.sql`select pg_terminate_backend(pid) from unnest(${sessions}::int[]) as pid`;
      await sleep(1_500);
    }
    expectAlive(fleet.processes);
    await waitLong("the API answering", async () =>
      (await connections()).status === 200 ? true : undefined,
    );
    await waitLong("collections after the terminations", async () =>
      (await collectedSince(Date.now() - 2_000)).length >= 1 ? true : undefined,
    );
    await waitLong("the new alert sent", async () =>
      fleet.deliveries.slice(before).some((delivery) => delivery.event === "alert_fire") ? true : undefined,
    );
    // Notifications still arrive: a connection added now is collected at once, not at the next poll.
    const added = await fleet.addConnection("added", monitored.port, "template1");
    await waitLong(
      "the added connection collected",
      async () =>
        (await fleet.sql`select 1 from metrics.pg_connectivity where connection_id = ${added} limit 1`)
          .length > 0
          ? true
          : undefined,
      15_000,
    );
    await sleep(3_000);
    expect(duplicateDeliveries(fleet.deliveries)).toEqual([]);
    expect(Date.now() - cutAt).toBeLessThan(90_000);
    expectAlive(fleet.processes);
  });
});
