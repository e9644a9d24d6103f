import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { clusters } from "./clusters.js";
import { nowOnInsert, rowId } from "./columns.js";
import { monitoredConnection } from "./monitored-connection.js";

/**
 * Monitored PostgreSQL servers. The password is stored encrypted (see `secrets.ts`); a connection is
 * owned by a user or by a service token, never both, or by no one once its owning user is deleted.
 */
export const connections = pgTable(
  "connections",
  {
    id: rowId(),
    name: text().notNull(),
    description: text(),
    host: text().notNull(),
    /** Numeric address to connect to instead of resolving `host` (as libpq's hostaddr). */
    hostaddr: text(),
    port: integer().notNull().default(5432),
    databaseName: text().notNull(),
    username: text().notNull(),
    passwordEncrypted: text(),
    sslmode: text().notNull().default("prefer"),
    sslcert: text(),
    sslkey: text(),
    sslrootcert: text(),
    /**
     * Cleared when the user is deleted (trigger `connections_owner_cleared`, migration 0013), so a new
     * user of the same name does not inherit the connection.
     */
    ownerUsername: text(),
    ownerToken: text(),
    isShared: boolean().notNull().default(false),
    isMonitored: boolean().notNull().default(true),
    /** The server runs on the collector's own host, so host metrics may come from that host (D6). */
    isLocal: boolean().notNull().default(false),
    /** Cluster membership: set by auto-detection (`membership_source` auto) or by users (manual). */
    clusterId: integer().references(() => clusters.id, { onDelete: "set null" }),
    role: text(),
    membershipSource: text().notNull().default("auto"),
    /** Set by the collector while the server cannot be reached, cleared on recovery. */
    connectionError: text(),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
  },
  (table) => [
    check("connections_port_range", sql`${table.port} between 1 and 65535`),
    check(
      "connections_sslmode",
      sql`${table.sslmode} in ('disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full')`,
    ),
    check("connections_membership_source", sql`${table.membershipSource} in ('auto', 'manual')`),
    // At most one owner: a connection whose owning user was deleted has none (superusers manage it).
    check("connections_one_owner", sql`${table.ownerUsername} is null or ${table.ownerToken} is null`),
    index("connections_monitored_idx").on(table.id).where(sql`${table.isMonitored}`),
    /** A connection's server: the address rule of `dbmon_server_connection` (migration 0029). */
    index("connections_address_idx").on(table.host, table.port),
  ],
);

/**
 * The connection (and database) each credential has selected, keyed by the SHA-256 of the session
 * or service token, so two sessions of one user select independently.
 */
export const connectionSelections = pgTable("connection_selections", {
  credentialHash: text().primaryKey(),
  connectionId: monitoredConnection(),
  databaseName: text(),
  updatedAt: nowOnInsert(),
});
