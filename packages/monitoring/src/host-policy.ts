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

/**
 * The eight 16-bit groups of an IPv6 address (zone index ignored), or undefined when it is not
 * one. Only text `isIP` accepted is split, so the work is linear in a short, well-formed string.
 */
function ipv6Groups(text: string): number[] | undefined {
  const address = text.split("%", 1)[0] ?? "";
  if (isIP(address) !== 6) {
    return undefined;
  }
  const hexGroups = (part: string): number[] => {
    if (part === "") {
      return [];
    }
    return part.split(":").flatMap((group) => {
      if (group.includes(".")) {
        // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two groups.
        const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
        return [(a << 8) | b, (c << 8) | d];
      }
      return [Number.parseInt(group, 16)];
    });
  };
  const [head = "", tail] = address.split("::");
  const before = hexGroups(head);
  const after = tail === undefined ? [] : hexGroups(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/**
 * The IPv4 addresses an IPv6 address carries, which a translator, tunnel or dual-stack socket
 * would deliver to: IPv4-mapped (::ffff:0:0/96), IPv4-translated (::ffff:0:0:0/96),
 * IPv4-compatible (::/96, but not :: and ::1), NAT64 (64:ff9b::/96), 6to4 (2002::/16, the
 * relay's address in groups 2 and 3) and Teredo (2001::/32: the server's address, and the
 * client's, stored inverted in the last two groups). Such an address is judged by them too.
 */
export function embeddedIPv4(address: string): string[] {
  const groups = ipv6Groups(address);
  if (!groups) {
    return [];
  }
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeros = (...values: number[]) => values.every((value) => value === 0);
  if (zeros(g0, g1, g2, g3, g4) && g5 === 0xffff) {
    return [ipv4Of(g6, g7)];
  }
  if (zeros(g0, g1, g2, g3, g5) && g4 === 0xffff) {
    return [ipv4Of(g6, g7)];
  }
  if (zeros(g0, g1, g2, g3, g4, g5) && !(g6 === 0 && g7 <= 1)) {
    return [ipv4Of(g6, g7)];
  }
  if (g0 === 0x64 && g1 === 0xff9b && zeros(g2, g3, g4, g5)) {
    return [ipv4Of(g6, g7)];
  }
  if (g0 === 0x2002) {
    return [ipv4Of(g1, g2)];
  }
  if (g0 === 0x2001 && g1 === 0) {
    return [ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)];
  }
  return [];
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

  // An IPv6 address that carries an IPv4 address passes only if that one would, and itself.
  const alwaysRefusedAddress = (address: string): boolean =>
    refused.check(address, familyOf(address)) ||
    embeddedIPv4(address).some((ipv4) => refused.check(ipv4, "ipv4"));
  const addressAllowed = (address: string): boolean => {
    if (!embeddedIPv4(address).every(addressAllowed)) {
      return false;
    }
    const family = familyOf(address);
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
      allowed.names.has(host) ? !alwaysRefusedAddress(address) : addressAllowed(address);
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
