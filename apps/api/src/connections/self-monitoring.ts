import { randomBytes } from "node:crypto";
import {
  type Datastore,
  DRIVER_TYPE_OPTIONS,
  decryptSecret,
  type EmbeddedServer,
  type SecretKey,
  schema,
  scramVerifier,
} from "@dbmon/datastore";
import { eq } from "drizzle-orm";
import postgres from "postgres";
import type { ConnectionStore } from "./store.js";

const SETTING_KEY = "self_connection_id";
export const SELF_CONNECTION_NAME = "local";
/** The role the self connection logs in as: monitoring views and settings, nothing of dbmon's. */
export const MONITOR_ROLE = "dbmon_monitor";

export const SELF_CONNECTION_QUERY_REFUSED =
  "Ad-hoc queries are not allowed on dbmon's own datastore connection";
export const SELF_CONNECTION_SHARING_REFUSED = "dbmon's own datastore connection cannot be shared";

/**
 * Registers the embedded datastore as the monitored connection `local`, so a fresh installation shows
 * real data at once. It logs in as MONITOR_ROLE, never as the datastore's superuser: whoever may read
 * `local` reaches the statistics views, not dbmon's users, sessions or secret key. Its port and the
 * role are refreshed on every start; the connection id and the (encrypted) password stay.
 */
export async function registerSelfConnection(
  services: { datastore: Datastore; connections: ConnectionStore; secretKey: SecretKey },
  embedded: EmbeddedServer,
): Promise<number> {
  const { db } = services.datastore;
  const [setting] = await db
    .select()
    .from(schema.systemSettings)
    .where(eq(schema.systemSettings.key, SETTING_KEY));
  const known =
    typeof setting?.value === "number" ? await services.connections.get(setting.value) : undefined;
  const password =
    known?.username === MONITOR_ROLE && known.passwordEncrypted
      ? decryptSecret(services.secretKey, known.passwordEncrypted)
      : randomBytes(24).toString("base64url");

  const superuser = postgres(embedded.url, { ...DRIVER_TYPE_OPTIONS, max: 1, onnotice: () => {} });
  try {
    await ensureMonitorRole(superuser, MONITOR_ROLE, password);
  } finally {
    await superuser.end();
  }

  const url = new URL(embedded.url);
  const reach = {
    host: url.hostname,
    port: Number(url.port),
    databaseName: decodeURIComponent(url.pathname.slice(1)) || "postgres",
    username: MONITOR_ROLE,
    password,
  };
  if (known) {
    await services.connections.update(known.id, { ...reach, isShared: false });
    return known.id;
  }
  const created = await services.connections.create(
    {
      ...reach,
      name: SELF_CONNECTION_NAME,
      description: "dbmon's own embedded datastore",
      sslMode: "disable",
      isMonitored: true,
    },
    // No owner: superusers manage it; nobody holds it by name.
    null,
    { isLocal: true },
  );
  await db
    .insert(schema.systemSettings)
    .values({ key: SETTING_KEY, value: created.id })
    .onConflictDoUpdate({
      target: schema.systemSettings.key,
      set: { value: created.id, updatedAt: new Date() },
    });
  return created.id;
}

/**
 * Creates (or resets) a login role with pg_monitor, pg_read_all_stats and pg_read_all_settings, read
 * access to the authentication rules (AUTHENTICATION_FILE_VIEWS), and nothing else: not a superuser,
 * no CREATEROLE/CREATEDB/REPLICATION/BYPASSRLS, member of no other role, owner of nothing. dbmon's tables grant nothing to PUBLIC, so it cannot read them, and
 * pg_monitor carries no file access (pg_read_file) and no signalling of other backends.
 * The password reaches the server as a SCRAM verifier, so it never appears in a server log.
 */
export async function ensureMonitorRole(
  superuser: postgres.Sql,
  role: string,
  password: string,
): Promise<void> {
  const name = `"${role.replaceAll('"', '""')}"`;
  await superuser.begin(async (tx) => {
    // Serialises concurrent starts: CREATE ROLE has no IF NOT EXISTS.
    await tx`select pg_advisory_xact_lock(hashtext('dbmon monitor role'))`;
    const [exists] = await tx`select 1 from pg_roles where rolname = ${role}`;
    if (!exists) {
      await tx.unsafe(`create role ${name} login`);
    }
    await tx.unsafe(
      `alter role ${name} with login nosuperuser nocreatedb nocreaterole noreplication nobypassrls inherit password '${scramVerifier(password)}'`,
    );
    const memberships = await tx<{ rolname: string }[]>`
      select g.rolname from pg_auth_members m join pg_roles g on g.oid = m.roleid
      where m.member = (select oid from pg_roles where rolname = ${role})`;
    for (const { rolname } of memberships) {
      if (!MONITOR_GRANTS.includes(rolname)) {
        await tx`revoke ${tx(rolname)} from ${tx(role)}`;
      }
    }
    await tx.unsafe(`grant ${MONITOR_GRANTS.join(", ")} to ${name}`);
    for (const view of AUTHENTICATION_FILE_VIEWS) {
      await tx.unsafe(`grant select on pg_catalog.${view} to ${name}`);
      await tx.unsafe(`grant execute on function pg_catalog.${view}() to ${name}`);
    }
  });
}

const MONITOR_GRANTS = ["pg_monitor", "pg_read_all_stats", "pg_read_all_settings"];
/**
 * The collector's probes of the same names read these; PostgreSQL opens them (and the functions
 * behind them) to superusers only, and pg_monitor does not include them. They show the server's
 * authentication rules, never a password: without them `local` would report its own setup as
 * refused on every start.
 */
const AUTHENTICATION_FILE_VIEWS = ["pg_hba_file_rules", "pg_ident_file_mappings"];
