import { describe, expect, it } from "vitest";
import { embeddedIPv4 } from "../src/host-policy.js";
import {
  createHostPolicy,
  createOutboundHostPolicy,
  isAllowedPort,
  isValidHostEntry,
  type Resolver,
} from "../src/index.js";

const dns: Record<string, string[]> = {
  "db.internal": ["10.1.2.3"],
  "db.example.com": ["203.0.113.10"],
  "sneaky.example.com": ["169.254.169.254"],
  "mixed.example.com": ["203.0.113.11", "169.254.1.1"],
  "nat64.example.com": ["64:ff9b::a9fe:a9fe"],
  localhost: ["127.0.0.1", "::1"],
};
const resolve: Resolver = async (host) => {
  const found = dns[host];
  if (!found) {
    throw new Error(`ENOTFOUND ${host}`);
  }
  return found;
};

describe("host policy", () => {
  const defaults = createHostPolicy({ resolve });

  it.each([
    "127.0.0.1",
    "::1",
    "localhost",
    "10.1.2.3",
    "192.168.1.5",
    "172.16.0.9",
    "db.internal",
    "db.example.com",
    "DB.Example.COM.",
  ])("allows databases where they live by default: %s", async (host) => {
    expect(await defaults.allows(host)).toBe(true);
  });

  it.each([
    "169.254.169.254",
    "169.254.10.1",
    "fe80::1",
    "[fe80::1]",
    "::ffff:169.254.169.254",
    "100.100.100.200",
    "fd00:ec2::254",
    "0.0.0.0",
    "224.0.0.1",
    "metadata.google.internal",
    "metadata",
    "sneaky.example.com",
    "mixed.example.com",
    "does-not-resolve.example.com",
    "",
    "bad host!",
  ])("always refuses link-local, metadata, unresolvable and malformed hosts: %s", async (host) => {
    expect(await defaults.allows(host)).toBe(false);
  });

  /** IPv6 spellings of an IPv4 address that a translator, tunnel or dual-stack socket delivers to it. */
  const ipv6Forms = (ipv4: string): string[] => {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4.split(".").map(Number);
    const high = ((a << 8) | b).toString(16);
    const low = ((c << 8) | d).toString(16);
    const inverted = `${(((a << 8) | b) ^ 0xffff).toString(16)}:${(((c << 8) | d) ^ 0xffff).toString(16)}`;
    return [
      `::ffff:${ipv4}`, // IPv4-mapped
      `::ffff:${high}:${low}`,
      `0:0:0:0:0:FFFF:${high}:${low}`,
      `[::ffff:${high}:${low}]`,
      `::ffff:0:${high}:${low}`, // IPv4-translated
      `::${ipv4}`, // IPv4-compatible
      `::${high}:${low}`,
      `64:ff9b::${ipv4}`, // NAT64
      `64:ff9b::${high}:${low}`,
      `2002:${high}:${low}::1`, // 6to4
      `2001:0:${high}:${low}:0:0:${inverted}`, // Teredo, as server and client
      `2001:0:4136:e378:8000:63bf:${inverted}`, // Teredo client
    ];
  };

  it.each([...ipv6Forms("169.254.169.254"), ...ipv6Forms("100.100.100.200"), ...ipv6Forms("0.0.0.0")])(
    "refuses IPv6 forms of always-refused IPv4 addresses: %s",
    async (host) => {
      expect(await defaults.allows(host)).toBe(false);
      expect(await createHostPolicy({ resolve, allowed: "::/0, 0.0.0.0/0" }).allows(host)).toBe(false);
    },
  );

  it("judges an IPv6 address that carries an IPv4 address by it, for blocks, allows and names alike", async () => {
    const policy = createHostPolicy({ resolve, blocked: "10.0.0.0/8", allowed: "10.1.2.3" });
    for (const host of ipv6Forms("10.9.9.9")) {
      expect(await policy.allows(host), host).toBe(false);
    }
    for (const host of ipv6Forms("10.1.2.3")) {
      expect(await policy.allows(host), host).toBe(true);
    }
    // A name whose address is a NAT64 form of a metadata address, even on the allow list.
    expect(await defaults.allows("nat64.example.com")).toBe(false);
    expect(
      await createHostPolicy({ resolve, allowed: "nat64.example.com" }).allows("nat64.example.com"),
    ).toBe(false);
    // Notifications refuse private and loopback space in every spelling.
    const outbound = createOutboundHostPolicy({ resolve });
    for (const host of [...ipv6Forms("127.0.0.1"), ...ipv6Forms("10.0.0.1"), ...ipv6Forms("192.168.1.1")]) {
      expect(await outbound.allows(host), host).toBe(false);
    }
    // Ordinary IPv6 addresses and public embedded addresses stay allowed.
    for (const host of ["::1", "2001:db8::1", "2002:cb00:710a::1", "64:ff9b::cb00:710a", "2001:4860::8888"]) {
      expect(await defaults.allows(host), host).toBe(true);
    }
  });

  it("finds the IPv4 address inside each IPv6 form, and none in others", () => {
    expect(embeddedIPv4("::ffff:1.2.3.4")).toEqual(["1.2.3.4"]);
    expect(embeddedIPv4("::ffff:102:304")).toEqual(["1.2.3.4"]);
    expect(embeddedIPv4("::ffff:0:102:304")).toEqual(["1.2.3.4"]);
    expect(embeddedIPv4("::102:304")).toEqual(["1.2.3.4"]);
    expect(embeddedIPv4("64:ff9b::1.2.3.4")).toEqual(["1.2.3.4"]);
    expect(embeddedIPv4("2002:102:304::")).toEqual(["1.2.3.4"]);
    expect(embeddedIPv4("2001:0:102:304:0:0:fefd:fcfb")).toEqual(["1.2.3.4", "1.2.3.4"]);
    expect(embeddedIPv4("2002:102:304::1%eth0")).toEqual(["1.2.3.4"]);
    for (const other of [
      "::",
      "::1",
      "2001:db8::1",
      "fe80::1",
      "1.2.3.4",
      "not an address",
      ":".repeat(100_000),
    ]) {
      expect(embeddedIPv4(other), other.slice(0, 20)).toEqual([]);
    }
  });

  it("blocks hosts, addresses and ranges from DBMON_BLOCKED_HOSTS, and re-admits DBMON_ALLOWED_HOSTS", async () => {
    const policy = createHostPolicy({
      resolve,
      blocked: "10.0.0.0/8, db.example.com, 192.168.1.5",
      allowed: "10.1.2.3",
    });
    expect(await policy.allows("10.9.9.9")).toBe(false);
    expect(await policy.allows("10.1.2.3")).toBe(true);
    expect(await policy.allows("db.internal")).toBe(true);
    expect(await policy.allows("db.example.com")).toBe(false);
    expect(await policy.allows("192.168.1.5")).toBe(false);
    expect(await policy.allows("192.168.1.6")).toBe(true);
  });

  it("never lets the allow list reach metadata addresses", async () => {
    const policy = createHostPolicy({ resolve, allowed: "169.254.0.0/16, sneaky.example.com" });
    expect(await policy.allows("169.254.169.254")).toBe(false);
    expect(await policy.allows("sneaky.example.com")).toBe(false);
  });

  it("validates configuration entries", () => {
    expect(["10.0.0.0/8", "::1", "fd00::/8", "db.example.com", "192.168.1.5"].every(isValidHostEntry)).toBe(
      true,
    );
    expect(
      ["10.0.0.0/33", "10.0.0.0/8/1", "db..example", "-db", "db.example.com/8"].some(isValidHostEntry),
    ).toBe(false);
  });

  it("refuses ports of other services", () => {
    expect(isAllowedPort(5432)).toBe(true);
    expect(isAllowedPort(6432)).toBe(true);
    for (const port of [0, -1, 65_536, 1.5, 22, 25, 80, 443, 6379]) {
      expect(isAllowedPort(port), String(port)).toBe(false);
    }
  });
});
