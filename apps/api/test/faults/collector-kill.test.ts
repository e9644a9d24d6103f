import {
  machinePostgresBinariesAvailable,
  startLoopbackPrimary,
  type TestServer,
} from "@dbmon/datastore/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbmonProcess } from "../dbmon-processes.js";
import { expectAlive, type Fleet, startFleet, waitLong } from "./support.js";

/** DBMON_COLLECTOR_LEASE_SECONDS of the fleet. */
const LEASE_SECONDS = 4;
/** Scheduling slack on a loaded 2-core machine, beyond the lease period itself. */
const SLACK_MS = 3_000;

/*
 * Two `dbmon collector` processes; one is killed with SIGKILL (no clean stop hands its leases over):
 * the other takes its connections within the lease and collects them.
 */
describe.skipIf(!machinePostgresBinariesAvailable())("a collector killed with SIGKILL", () => {
  let fleet: Fleet;
  let monitored: TestServer;
  const collectors: { process: DbmonProcess; instanceId: string }[] = [];
  const ids: number[] = [];

  beforeAll(async () => {
    [fleet, monitored] = await Promise.all([startFleet(), startLoopbackPrimary()]);
    for (let index = 0; index < 2; index++) {
      const process = await fleet.start("collector");
      collectors.push({
        process,
        instanceId: String((await process.logged("dbmon collector running")).instanceId),
      });
    }
    await fleet.onlyProbes(["pg_connectivity"], 1);
    for (let index = 1; index <= 4; index++) {
      ids.push(
        await fleet.addConnection(`monitored ${index}`, monitored.port, index % 2 ? "postgres" : "template1"),
      );
    }
  });

  afterAll(async () => {
    await fleet?.close();
    await monitored?.remove();
  });

  const holders = async () =>
    new Map(
      (
        await fleet.sql<{ connection_id: number; holder: string }[]>`
          select connection_id, holder from collector_leases where expires_at > now()`
      ).map((row) => [row.connection_id, row.holder]),
    );

  it("hands its connections to the other collector within one lease period", async () => {
    const [victim, survivor] = collectors as [(typeof collectors)[0], (typeof collectors)[0]];
    const victims = await waitLong("the connections shared out", async () => {
      const leased = await holders();
      const held = ids.filter((id) => leased.get(id) === victim.instanceId);
      return ids.every((id) => leased.has(id)) && held.length > 0 && held.length < ids.length
        ? held
        : undefined;
    });
    victim.process.child.kill("SIGKILL");
    const killedAt = Date.now();
    await victim.process.exited;

    await waitLong("the survivor holding every connection", async () => {
      const leased = await holders();
      return ids.every((id) => leased.get(id) === survivor.instanceId) ? true : undefined;
    });
    const taken = await fleet.sql<{ acquired_ms: number }[]>`
      select (extract(epoch from acquired_at) * 1000)::float8 as acquired_ms
      from collector_leases where connection_id = any(${victims}::int[])`;
    for (const lease of taken) {
      expect(lease.acquired_ms - killedAt).toBeLessThanOrEqual(LEASE_SECONDS * 1000 + SLACK_MS);
    }
    const takenAt = Math.max(...taken.map((lease) => lease.acquired_ms));
    await waitLong("a collection of every taken connection by the survivor", async () => {
      const [row] = await fleet.sql<{ n: number }[]>`
        select count(distinct connection_id)::int as n from metrics.pg_connectivity
        where connection_id = any(${victims}::int[]) and collected_at > ${new Date(takenAt).toISOString()}::timestamptz`;
      return row?.n === victims.length ? true : undefined;
    });
    // No collection stored twice.
    const duplicates = await fleet.sql`
      select connection_id, collected_at from metrics.pg_connectivity
      group by connection_id, collected_at having count(*) > 1`;
    expect(duplicates).toEqual([]);
    expectAlive([survivor.process]);
  });
});
