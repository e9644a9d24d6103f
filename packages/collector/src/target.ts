import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { decryptSecret, type SecretKey } from "@dbmon/datastore";
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

function sslOptions(row: ConnectionRow, files: Awaited<ReturnType<typeof sslFiles>>): ServerTarget["ssl"] {
  switch (row.sslmode) {
    case "disable":
      return false;
    case "allow":
    case "prefer":
      return Object.keys(files).length > 0 ? { ...files, rejectUnauthorized: false } : "prefer";
    case "require":
      return Object.keys(files).length > 0 ? { ...files, rejectUnauthorized: false } : "require";
    case "verify-ca":
      // The chain is verified, the host name is not (libpq's verify-ca).
      return { ...files, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    default:
      return { ...files, rejectUnauthorized: true };
  }
}

/**
 * Where and how to connect to a connection's server. Throws (SslFileError among others) when it
 * cannot be reached as configured: a password under another key, an unusable certificate file.
 */
export async function serverTarget(row: ConnectionRow, options: TargetOptions): Promise<ServerTarget> {
  const address = row.hostaddr || row.host;
  const socketDirectory = address.startsWith("/") ? address : undefined;
  return {
    host: socketDirectory ? undefined : address,
    path: socketDirectory ? `${socketDirectory.replace(/\/$/, "")}/.s.PGSQL.${row.port}` : undefined,
    port: row.port,
    username: row.username,
    password: row.password_encrypted ? decryptSecret(options.key, row.password_encrypted) : undefined,
    ssl: socketDirectory ? false : sslOptions(row, await sslFiles(row, options.sslDirectory)),
    isLocalHost: row.is_local || isLoopbackAddress(address),
  };
}
