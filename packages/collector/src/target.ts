import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { decryptSecret, type SecretKey } from "@dbmon/datastore";
import type { HostPolicy } from "@dbmon/monitoring";
import { readSslFile } from "./ssl-files.js";

/** The columns of a `connections` row the collector needs. */
export interface ConnectionRow {
  id: number;
  name: string;
  host: string;
  hostaddr: string | null;
  port: number;
  database_name: string;
  username: string;
  password_encrypted: string | null;
  sslmode: string;
  sslcert: string | null;
  sslkey: string | null;
  sslrootcert: string | null;
  is_local: boolean;
  connection_error: string | null;
}

/** Where and how to reach a monitored server (the password decrypted). */
export interface ServerTarget {
  host: string | undefined;
  /** Unix socket path when `host` is a directory, as libpq does. */
  path: string | undefined;
  port: number;
  username: string;
  password: string | undefined;
  ssl: boolean | "prefer" | "require" | ConnectionOptions;
  isLocalHost: boolean;
  /**
   * The address to open a connection to now: `host` resolved and vetted by the host policy at each
   * call, so that a name cannot pass the check and then lead elsewhere (DNS rebinding). TLS still
   * names `host` (SNI and the certificate check).
   */
  address(): Promise<string | undefined>;
}

/** A host the policy refuses when a connection is opened (it may have passed when written). */
export class HostRefusedError extends Error {
  override name = "HostRefusedError";
}

/** Changes of these fields make the collector reconnect (a password change among them). */
export function connectionFingerprint(row: ConnectionRow): string {
  return JSON.stringify([
    row.host,
    row.hostaddr,
    row.port,
    row.database_name,
    row.username,
    row.password_encrypted,
    row.sslmode,
    row.sslcert,
    row.sslkey,
    row.sslrootcert,
    row.is_local,
  ]);
}

export function isLoopbackAddress(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.$/, "");
  if (name === "" || name.startsWith("/") || name === "localhost" || name.endsWith(".localhost")) {
    return true;
  }
  if (isIP(name) === 4) {
    return name.startsWith("127.");
  }
  const bare = name.replace(/^\[|\]$/g, "");
  return bare === "::1" || bare.startsWith("::ffff:127.");
}

/** How to reach a connection's server beyond its row. */
export interface TargetOptions {
  /** Decrypts the stored password. */
  key: SecretKey;
  /** DBMON_SSL_DIR: the only directory `ssl_*_path` files are read from (unset: none are). */
  sslDirectory: string | undefined;
  /** Where monitored servers may be; unset: not checked (tests). dbmon's own `local` is exempt. */
  hostPolicy?: HostPolicy | undefined;
}

async function sslFiles(row: ConnectionRow, directory: string | undefined) {
  const read = (field: string, path: string | null) =>
    path ? readSslFile(field, path, directory) : undefined;
  const [ca, cert, key] = await Promise.all([
    read("ssl_root_cert_path", row.sslrootcert),
    read("ssl_cert_path", row.sslcert),
    read("ssl_key_path", row.sslkey),
  ]);
  return { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
}

function sslOptions(
  row: ConnectionRow,
  files: Awaited<ReturnType<typeof sslFiles>>,
  servername: string | undefined,
): ServerTarget["ssl"] {
  // Connections are opened to a vetted address: the name goes to TLS explicitly.
  const named = servername ? { servername } : {};
  switch (row.sslmode) {
    case "disable":
      return false;
    case "allow":
    case "prefer":
      return Object.keys(files).length > 0 ? { ...files, ...named, rejectUnauthorized: false } : "prefer";
    case "require":
      return { ...files, ...named, rejectUnauthorized: false };
    case "verify-ca":
      // The chain is verified, the host name is not (libpq's verify-ca).
      return { ...files, ...named, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    default:
      return { ...files, ...named, rejectUnauthorized: true };
  }
}

/**
 * Where and how to connect to a connection's server. Throws (SslFileError among others) when it
 * cannot be reached as configured: a password under another key, an unusable certificate file.
 */
export async function serverTarget(row: ConnectionRow, options: TargetOptions): Promise<ServerTarget> {
  const address = row.hostaddr || row.host;
  const socketDirectory = address.startsWith("/") ? address : undefined;
  // libpq's rule: with hostaddr, `host` is still the name TLS checks the certificate against.
  const servername = !row.host.startsWith("/") && isIP(row.host) === 0 ? row.host : undefined;
  const policy = row.is_local || socketDirectory ? undefined : options.hostPolicy;
  return {
    host: socketDirectory ? undefined : address,
    path: socketDirectory ? `${socketDirectory.replace(/\/$/, "")}/.s.PGSQL.${row.port}` : undefined,
    port: row.port,
    username: row.username,
    password: row.password_encrypted ? decryptSecret(options.key, row.password_encrypted) : undefined,
    ssl: socketDirectory ? false : sslOptions(row, await sslFiles(row, options.sslDirectory), servername),
    isLocalHost: row.is_local || isLoopbackAddress(address),
    async address() {
      if (!policy || socketDirectory) {
        return socketDirectory ? undefined : address;
      }
      const vetted = await policy.vet(address);
      if (!vetted?.[0]) {
        throw new HostRefusedError(`Invalid host: ${address} is not an allowed address`);
      }
      return vetted[0];
    },
  };
}
