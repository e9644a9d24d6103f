import { describe, expect, it } from "vitest";
import { classifyNode, conninfoTarget } from "../src/probes/node-role.js";

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
