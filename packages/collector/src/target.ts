import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import { decryptSecret, type SecretKey } from "@dbmon/datastore";

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

function sslOptions(row: ConnectionRow): ServerTarget["ssl"] {
  const files = {
    ...(row.sslrootcert ? { ca: readFileSync(row.sslrootcert) } : {}),
    ...(row.sslcert ? { cert: readFileSync(row.sslcert) } : {}),
    ...(row.sslkey ? { key: readFileSync(row.sslkey) } : {}),
  };
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

export function serverTarget(row: ConnectionRow, key: SecretKey): ServerTarget {
  const address = row.hostaddr || row.host;
  const socketDirectory = address.startsWith("/") ? address : undefined;
  return {
    host: socketDirectory ? undefined : address,
    path: socketDirectory ? `${socketDirectory.replace(/\/$/, "")}/.s.PGSQL.${row.port}` : undefined,
    port: row.port,
    username: row.username,
    password: row.password_encrypted ? decryptSecret(key, row.password_encrypted) : undefined,
    ssl: socketDirectory ? false : sslOptions(row),
    isLocalHost: row.is_local || isLoopbackAddress(address),
  };
}
