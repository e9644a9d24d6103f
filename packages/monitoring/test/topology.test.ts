import { describe, expect, it } from "vitest";
import { type DetectionNode, detectClusters, spockPrefix } from "../src/index.js";

let nextId = 1;
function node(name: string, fields: Partial<DetectionNode> = {}): DetectionNode {
  return {
    id: nextId++,
    name,
    host: `${name}.example.net`,
    hostaddr: null,
    port: 5432,
    membershipSource: "auto",
    primaryRole: "standalone",
    isInRecovery: false,
    isStreamingStandby: false,
    hasBinaryStandbys: false,
    upstreamHost: null,
    upstreamPort: null,
    subscriptionCount: 0,
    publisherHost: null,
    publisherPort: null,
    hasSpock: false,
    systemIdentifier: null,
    ...fields,
  };
}

const standbyOf = (name: string, upstream: DetectionNode, fields: Partial<DetectionNode> = {}) =>
  node(name, {
    primaryRole: "binary_standby",
    isInRecovery: true,
    isStreamingStandby: true,
    upstreamHost: upstream.host,
    upstreamPort: upstream.port,
    ...fields,
  });

describe("cluster auto-detection", () => {
  it("takes the text before the first dash as the Spock prefix", () => {
    expect(spockPrefix("pg17-node1")).toBe("pg17");
    expect(spockPrefix("pg17-node-a")).toBe("pg17");
    expect(spockPrefix("solo")).toBe("solo");
  });

  it("groups a cascade under its primary and falls back to the system identifier", () => {
    const primary = node("main", {
      primaryRole: "binary_primary",
      hasBinaryStandbys: true,
      systemIdentifier: "42",
    });
    const first = standbyOf("replica1", primary, {
      primaryRole: "binary_cascading",
      hasBinaryStandbys: true,
    });
    const cascaded = standbyOf("replica2", first);
    // Its upstream address is a load balancer nobody monitors.
    const behindProxy = standbyOf("replica3", primary, { upstreamHost: "proxy", systemIdentifier: "42" });
    const alone = node("alone");
    expect(detectClusters([primary, first, cascaded, behindProxy, alone])).toEqual([
      {
        key: `binary:${primary.id}`,
        defaultName: "main",
        members: [primary.id, first.id, cascaded.id, behindProxy.id],
        relationships: [
          { source: first.id, target: primary.id, type: "streams_from" },
          { source: cascaded.id, target: first.id, type: "streams_from" },
          { source: behindProxy.id, target: primary.id, type: "streams_from" },
        ],
      },
      { key: `standalone:${alone.id}`, defaultName: "alone", members: [alone.id], relationships: [] },
    ]);
  });

  it("makes Spock clusters by name prefix, HA when a node has standbys, and pairs every node", () => {
    const n1 = node("pg17-n1", { primaryRole: "spock_node", hasSpock: true, hasBinaryStandbys: true });
    const n2 = node("pg17-n2", { primaryRole: "spock_node", hasSpock: true });
    const n1Standby = standbyOf("pg17-n1-standby", n1, { hasSpock: true });
    const other = node("pg16-a", { primaryRole: "spock_node", hasSpock: true });
    const clusters = detectClusters([n1, n2, n1Standby, other]);
    expect(clusters.map((c) => [c.key, c.defaultName, c.members])).toEqual([
      ["spock:pg16", "pg16 Spock", [other.id]],
      ["spock:pg17", "pg17 Spock HA", [n1.id, n2.id, n1Standby.id]],
    ]);
    expect(clusters[1]?.relationships).toEqual([
      { source: n1Standby.id, target: n1.id, type: "streams_from" },
      { source: n1.id, target: n2.id, type: "replicates_with" },
      { source: n2.id, target: n1.id, type: "replicates_with" },
    ]);
  });

  it("puts logical subscribers with their publisher, and leaves manual placements out", () => {
    const publisher = node("pub", { primaryRole: "logical_publisher" });
    const subscriber = node("sub", {
      primaryRole: "logical_subscriber",
      subscriptionCount: 1,
      publisherHost: publisher.host,
      publisherPort: 5432,
    });
    const placed = node("placed", { membershipSource: "manual" });
    const uncollected = node("new", { primaryRole: null });
    expect(detectClusters([publisher, subscriber, placed, uncollected])).toEqual([
      {
        key: `logical:${publisher.id}`,
        defaultName: "pub",
        members: [publisher.id, subscriber.id],
        relationships: [{ source: subscriber.id, target: publisher.id, type: "subscribes_to" }],
      },
    ]);
  });

  it("matches upstream addresses by hostaddr, connection name and loopback aliases", () => {
    const primary = node("db-a", { host: "localhost", hostaddr: "10.1.1.1", primaryRole: "binary_primary" });
    const byAddr = standbyOf("s1", primary, { upstreamHost: "10.1.1.1" });
    const byLoopback = standbyOf("s2", primary, { upstreamHost: "127.0.0.1" });
    const byName = standbyOf("s3", primary, { upstreamHost: "db-a" });
    const [cluster] = detectClusters([primary, byAddr, byLoopback, byName]);
    expect(cluster?.members).toEqual([primary.id, byAddr.id, byLoopback.id, byName.id]);
  });
});
