import { listConnectionDatabases } from "@dbmon/contract";
import postgres from "postgres";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";

interface DatabaseRow {
  name: string;
  owner: string;
  encoding: string;
  size: string;
  tablespace: string;
  description: string | null;
}

export function registerListConnectionDatabases(app: App): void {
  app.openapi(guarded(listConnectionDatabases, { connection: { param: "id", level: "read" } }), async (c) => {
    const { connections, logger } = c.get("services");
    const row = await connections.get(c.req.valid("param").id);
    if (!row) {
      throw new ApiError(404, "Connection not found");
    }
    const sql = postgres({
      ...connections.clientOptions(row),
      max: 1,
      connect_timeout: 10,
      idle_timeout: 1,
      onnotice: () => {},
      connection: { application_name: "dbmon api", statement_timeout: 30_000 },
    });
    try {
      const databases = await sql<DatabaseRow[]>`
        select d.datname as name, pg_get_userbyid(d.datdba) as owner,
               pg_encoding_to_char(d.encoding) as encoding,
               case when has_database_privilege(d.oid, 'CONNECT')
                    then pg_size_pretty(pg_database_size(d.oid)) else 'unknown' end as size,
               t.spcname as tablespace, shobj_description(d.oid, 'pg_database') as description
        from pg_database d join pg_tablespace t on t.oid = d.dattablespace
        where d.datallowconn and not d.datistemplate
        order by d.datname`;
      return c.json([...databases], 200);
    } catch (error) {
      logger.warn({ err: error, connectionId: row.id }, "listing databases failed");
      throw new ApiError(500, "Failed to list databases");
    } finally {
      await sql.end({ timeout: 1 });
    }
  });
}
