import { describe, expect, it } from "vitest";
import { createHostPolicy, isAllowedPort, isValidHostEntry, type Resolver } from "../src/index.js";

const dns: Record<string, string[]> = {
  "db.internal": ["10.1.2.3"],
  "db.example.com": ["203.0.113.10"],
  "sneaky.example.com": ["169.254.169.254"],
  "mixed.example.com": ["203.0.113.11", "169.254.1.1"],
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
