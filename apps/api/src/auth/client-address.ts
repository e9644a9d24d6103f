import { BlockList, isIP } from "node:net";
import type { Context } from "hono";

/** An IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export function isAddressOrRange(value: string): boolean {
  const [address = "", prefix, ...rest] = value.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) {
    return false;
  }
  if (prefix === undefined) {
    return true;
  }
  const bits = Number(prefix);
  return /^\d+$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}

/** Matches addresses against the configured trusted proxies. */
export function trustedProxyMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) {
      list.addAddress(address, type);
    } else {
      list.addSubnet(address, Number(prefix), type);
    }
  }
  return (address) => {
    const family = isIP(address);
    if (family === 0) {
      return false;
    }
    return list.check(address, family === 6 ? "ipv6" : "ipv4");
  };
}

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string } };
}

/**
 * The caller's address: the TCP peer, unless the peer is a trusted proxy, in which case the
 * right-most X-Forwarded-For entry that is not itself a trusted proxy.
 */
export function clientAddress(c: Context, isTrustedProxy: (address: string) => boolean): string {
  const peer = normalise((c.env as NodeBindings | undefined)?.incoming?.socket?.remoteAddress ?? "unknown");
  if (!isTrustedProxy(peer)) {
    return peer;
  }
  const forwarded = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((entry) => normalise(entry.trim()))
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) {
    const hop = forwarded[i] as string;
    if (!isTrustedProxy(hop)) {
      return hop;
    }
  }
  return forwarded[0] ?? normalise(c.req.header("x-real-ip")?.trim() || peer);
}

/** IPv4 peers on a dual-stack socket arrive as `::ffff:1.2.3.4`. */
function normalise(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * What a per-address limit counts: an IPv4 address, or the /64 an IPv6 address belongs to, since one
 * subscriber is routed a whole /64 and could otherwise spread its attempts over 2^64 addresses.
 * Anything that is not an IP address (a test's "unknown" peer) counts as itself.
 */
export function addressBlock(address: string): string {
  if (isIP(address) !== 6) {
    return address;
  }
  const [head = "", tail] = (address.toLowerCase().split("%")[0] ?? "").split("::");
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) stands for two groups.
  const groups = (part: string | undefined) =>
    part ? part.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group])) : [];
  const leading = groups(head);
  const trailing = groups(tail);
  const hextets =
    tail === undefined
      ? leading
      : [...leading, ...Array<string>(8 - leading.length - trailing.length).fill("0"), ...trailing];
  return `${hextets
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}
