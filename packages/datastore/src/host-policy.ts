import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Where dbmon may open connections to monitored servers (an SSRF guard). Link-local and cloud
 * metadata addresses are always refused; loopback, private and public networks are allowed unless
 * DBMON_BLOCKED_HOSTS says otherwise, and DBMON_ALLOWED_HOSTS re-admits what a block covers.
 */
export interface HostPolicy {
  /** Resolves `host` and answers whether every address it names may be connected to. */
  allows(host: string): Promise<boolean>;
  /**
   * Resolves `host` once and returns its addresses when every one may be connected to, otherwise
   * undefined. Connecting to one of these (not to the name, which could resolve differently the
   * next time: DNS rebinding) is what makes the check hold.
   */
  vet(host: string): Promise<string[] | undefined>;
}

/** Ports of other well-known services: a database connection to them is a probe, not monitoring. */
const REFUSED_PORTS = new Set([
  22, 23, 25, 53, 80, 110, 111, 135, 139, 143, 389, 443, 445, 993, 995, 2375, 2376, 6379,
]);

export function isAllowedPort(port: number): boolean {
  return Number.isInteger(port) && port >= 1 && port <= 65_535 && !REFUSED_PORTS.has(port);
}

const METADATA_HOSTNAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);

function alwaysRefused(): BlockList {
  const list = new BlockList();
  list.addSubnet("169.254.0.0", 16, "ipv4"); // link-local, including 169.254.169.254 metadata
  list.addSubnet("0.0.0.0", 8, "ipv4");
  list.addSubnet("224.0.0.0", 4, "ipv4"); // multicast
  list.addSubnet("240.0.0.0", 4, "ipv4"); // reserved, broadcast
  list.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud metadata
  list.addSubnet("fe80::", 10, "ipv6"); // link-local
  list.addSubnet("ff00::", 8, "ipv6"); // multicast
  list.addAddress("::", "ipv6");
  list.addAddress("fd00:ec2::254", "ipv6"); // AWS metadata over IPv6
  return list;
}

interface HostList {
  names: Set<string>;
  addresses: BlockList;
}

/** Parses a comma-separated list of host names, IP addresses and CIDR ranges. */
export function parseHostList(value: string | undefined): HostList {
  const list: HostList = { names: new Set(), addresses: new BlockList() };
  for (const raw of (value ?? "").split(",")) {
    const entry = normaliseHost(raw);
    if (!entry) {
      continue;
    }
    const [address, prefix] = entry.split("/");
    const family = isIP(address ?? "");
    if (family && prefix !== undefined) {
      list.addresses.addSubnet(address as string, Number(prefix), family === 6 ? "ipv6" : "ipv4");
    } else if (family) {
      list.addresses.addAddress(entry, family === 6 ? "ipv6" : "ipv4");
    } else {
      list.names.add(entry);
    }
  }
  return list;
}

/** Whether a host-list entry is well-formed; used to validate the configuration. */
export function isValidHostEntry(raw: string): boolean {
  const entry = normaliseHost(raw);
  const [address, prefix, extra] = entry.split("/");
  const family = isIP(address ?? "");
  if (prefix !== undefined) {
    const bits = Number(prefix);
    return extra === undefined && family !== 0 && /^\d+$/.test(prefix) && bits <= (family === 6 ? 128 : 32);
  }
  return family !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(entry);
}

function normaliseHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, "")
    .replace(/^\[(.*)\]$/, "$1");
}

function familyOf(address: string): "ipv4" | "ipv6" {
  return isIP(address) === 6 ? "ipv6" : "ipv4";
}

export type Resolver = (host: string) => Promise<string[]>;

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true })).map((entry) => entry.address);

export function createHostPolicy(options: {
  allowed?: string | undefined;
  blocked?: string | undefined;
  resolve?: Resolver;
}): HostPolicy {
  const refused = alwaysRefused();
  const allowed = parseHostList(options.allowed);
  const blocked = parseHostList(options.blocked);
  const resolve = options.resolve ?? systemResolver;

  const addressAllowed = (address: string): boolean => {
    const family = familyOf(address);
    const mapped =
      family === "ipv6" && /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : undefined;
    if (mapped !== undefined) {
      return addressAllowed(mapped);
    }
    if (refused.check(address, family)) {
      return false;
    }
    if (allowed.addresses.check(address, family)) {
      return true;
    }
    return !blocked.addresses.check(address, family);
  };

  const vet = async (rawHost: string): Promise<string[] | undefined> => {
    const host = normaliseHost(rawHost);
    if (!host || METADATA_HOSTNAMES.has(host)) {
      return undefined;
    }
    if (isIP(host)) {
      return addressAllowed(host) ? [host] : undefined;
    }
    if (!isValidHostEntry(host)) {
      return undefined;
    }
    if (blocked.names.has(host) && !allowed.names.has(host)) {
      return undefined;
    }
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch {
      return undefined;
    }
    // A name on the allow list still may not lead to a metadata or link-local address.
    const allowedAddress = (address: string) =>
      allowed.names.has(host) ? !refused.check(address, familyOf(address)) : addressAllowed(address);
    return addresses.length > 0 && addresses.every(allowedAddress) ? addresses : undefined;
  };
  return {
    vet,
    async allows(host: string): Promise<boolean> {
      return (await vet(host)) !== undefined;
    },
  };
}

/** Private, loopback and shared address space: refused for outbound notifications unless allowed. */
const PRIVATE_RANGES = [
  "localhost",
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "100.64.0.0/10",
  "192.0.2.0/24",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "::1",
  "fc00::/7",
].join(",");

/**
 * The policy for outbound webhook and SMTP hosts: cloud metadata and link-local are always refused,
 * private and loopback networks unless `allowed` (DBMON_ALLOWED_HOSTS) names them.
 */
export function createOutboundHostPolicy(options: {
  allowed?: string | undefined;
  resolve?: Resolver;
}): HostPolicy {
  return createHostPolicy({ allowed: options.allowed, blocked: PRIVATE_RANGES, resolve: options.resolve });
}
