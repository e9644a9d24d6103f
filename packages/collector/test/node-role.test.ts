import {
  execStatements as exec,
  machinePostgresBinariesAvailable,
  startPrimary,
  type TestServer,
} from "@dbmon/datastore/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyNode, conninfoTarget, pgNodeRole } from "../src/probes/node-role.js";
import type { ProbeRow } from "../src/probes/types.js";
import { waitFor } from "./support.js";

describe("pg_node_role helpers", () => {
  it("reads the publisher's address from a subscription's connection string", () => {
    expect(conninfoTarget("host=db1.example.net port=5433 dbname=app user=repl")).toEqual({
      host: "db1.example.net",
      port: 5433,
    });
    expect(conninfoTarget("dbname=app host='db 2' password='it''s'")).toEqual({ host: "db 2", port: 5432 });
    expect(conninfoTarget("hostaddr=10.0.0.5 port=6000")).toEqual({ host: "10.0.0.5", port: 6000 });
    expect(conninfoTarget("host=a,b port=5001,5002")).toEqual({ host: "a", port: 5001 });
    expect(conninfoTarget("postgresql://repl@db3:6543/app?sslmode=require")).toEqual({
      host: "db3",
      port: 6543,
    });
    expect(conninfoTarget("dbname=app")).toEqual({ host: null, port: null });
    expect(conninfoTarget(null)).toEqual({ host: null, port: null });
  });

  it("picks the primary role by precedence", () => {
    const base = {
      isInRecovery: false,
      standbyCount: 0,
      isStreamingStandby: false,
      publicationCount: 0,
      subscriptionCount: 0,
      activeLogicalSlotCount: 0,
      hasSpock: false,
    };
    expect(classifyNode(base)).toEqual({ primaryRole: "standalone", flags: [] });
    expect(classifyNode({ ...base, standbyCount: 2 })).toEqual({
      primaryRole: "binary_primary",
      flags: ["binary_primary"],
    });
    expect(classifyNode({ ...base, isInRecovery: true, isStreamingStandby: true }).primaryRole).toBe(
      "binary_standby",
    );
    expect(
      classifyNode({ ...base, isInRecovery: true, isStreamingStandby: true, standbyCount: 1 }).primaryRole,
    ).toBe("binary_cascading");
    // Publications without an active slot do not make a publisher.
    expect(classifyNode({ ...base, publicationCount: 1 }).primaryRole).toBe("standalone");
    expect(classifyNode({ ...base, publicationCount: 1, activeLogicalSlotCount: 1 }).primaryRole).toBe(
      "logical_publisher",
    );
    expect(
      classifyNode({ ...base, publicationCount: 1, activeLogicalSlotCount: 1, subscriptionCount: 1 })
        .primaryRole,
    ).toBe("logical_bidirectional");
    expect(classifyNode({ ...base, subscriptionCount: 1 }).primaryRole).toBe("logical_subscriber");
    expect(classifyNode({ ...base, hasSpock: true, standbyCount: 1, subscriptionCount: 2 })).toEqual({
      primaryRole: "spock_node",
      flags: ["binary_primary", "logical_subscriber", "spock_node"],
    });
    // A Spock node's standby is a standby.
    expect(
      classifyNode({ ...base, hasSpock: true, isInRecovery: true, isStreamingStandby: true }).primaryRole,
    ).toBe("binary_standby");
  });
});

describe.skipIf(!machinePostgresBinariesAvailable())(
  "pg_node_role on a server with subscriptions in two databases",
  () => {
    // A server of the test's own: subscriptions and their workers are server-wide state. Needs the
    // machine's PostgreSQL 15 binaries, which CI has.
    let server: TestServer;
    beforeAll(async () => {
      server = await startPrimary("logical");
      await exec(server.url, "create database pub", "create database home", "create database other");
      await exec(
        server.urlOf("pub"),
        "create table t (id int primary key)",
        "create publication p for table t",
      );
      await exec(server.urlOf("other"), "create table t (id int primary key)");
      await exec(server.urlOf("pub"), "select pg_create_logical_replication_slot('working', 'pgoutput')");
      const conninfo = `host=127.0.0.1 port=${server.port} user=postgres dbname=pub`;
      await exec(
        server.urlOf("other"),
        `create subscription working connection '${conninfo}' publication p with (create_slot = false)`,
      );
      await exec(
        server.urlOf("home"),
        `create subscription idle connection '${conninfo}' publication p with (connect = false)`,
      );
    }, 120_000);
    afterAll(async () => {
      await server?.remove();
    });

    it("counts the workers of the collected database's subscriptions only", async () => {
      const home = postgres(server.urlOf("home"), { max: 1, onnotice: () => {} });
      try {
        // The other database's subscription has its worker running...
        await waitFor("the working subscription's worker", async () => {
          const [row] = await home`select count(*)::int as n from pg_stat_subscription where pid is not null`;
          return (row?.n ?? 0) > 0 ? true : undefined;
        });
        const context = {
          query: (text: string) => home.unsafe(text) as Promise<ProbeRow[]>,
          serverVersionNum: 150000,
          systemStatsSchema: null,
          isLocalHost: true,
          includeSystemCatalogs: true,
          absent: () => {},
        };
        // ...which must not count for this database's subscription, whose worker is down.
        const [row] = (await pgNodeRole.collect?.(context)) ?? [];
        expect(row).toMatchObject({ subscription_count: 1, active_subscription_count: 0 });
      } finally {
        await home.end();
      }
    });
  },
);
