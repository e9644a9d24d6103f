import { type EmbeddedServer, schema } from "@dbmon/datastore";
import { eq } from "drizzle-orm";
import type { Services } from "../services.js";

const SETTING_KEY = "self_connection_id";
export const SELF_CONNECTION_NAME = "local";

/**
 * Registers the embedded datastore as the monitored connection `local`, so a fresh installation shows
 * real data at once. Its port and password are refreshed on every start; the connection id stays.
 */
export async function registerSelfConnection(
  services: Pick<Services, "datastore" | "connections" | "config">,
  embedded: EmbeddedServer,
): Promise<number> {
  const { db } = services.datastore;
  const url = new URL(embedded.url);
  const reach = {
    host: url.hostname,
    port: Number(url.port),
    database_name: decodeURIComponent(url.pathname.slice(1)) || "postgres",
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
  const [setting] = await db
    .select()
    .from(schema.systemSettings)
    .where(eq(schema.systemSettings.key, SETTING_KEY));
  const known =
    typeof setting?.value === "number" ? await services.connections.get(setting.value) : undefined;
  if (known) {
    await services.connections.update(known.id, reach);
    return known.id;
  }
  const created = await services.connections.create(
    {
      ...reach,
      name: SELF_CONNECTION_NAME,
      description: "dbmon's own embedded datastore",
      ssl_mode: "disable",
      is_monitored: true,
    },
    services.config.adminUsername,
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
