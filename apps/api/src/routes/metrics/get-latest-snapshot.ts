import { getLatestSnapshot } from "@dbmon/contract";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";
import { ApiError } from "../../http/errors.js";
import {
  catalogueProbe,
  dimensionColumns,
  probeTable,
  probeTableExists,
  quoted,
} from "../../metrics/catalogue.js";
import { required, requireReadable } from "../../metrics/request.js";

const MAX_LIMIT = 100;
const DEFAULT_EXCLUDED_SCHEMAS = ["pg_catalog", "information_schema", "pg_toast"];

export function registerGetLatestSnapshot(app: App): void {
  app.openapi(guarded(getLatestSnapshot, {}), async (c) => {
    const query = c.req.valid("query");
    const connectionId = required(query.connection_id, "connection_id");
    const probe = catalogueProbe(
      required(query.probe_name, "probe_name"),
      (name) => `Probe "${name}" not found`,
    );
    const dimensions = dimensionColumns(probe);
    if (dimensions.length === 0) {
      throw new ApiError(400, `Probe "${probe.name}" has no dimension columns`);
    }
    const output = [
      ...(probe.scope === "database" ? ["database_name"] : []),
      ...probe.columns.map((col) => col.name),
    ];
    const orderBy = query.order_by ?? dimensions[0];
    if (!output.includes(orderBy as string)) {
      throw new ApiError(
        400,
        `Invalid order_by: column "${orderBy}" does not exist in probe "${probe.name}" output`,
      );
    }
    await requireReadable(c.get("access"), [connectionId]);
    const { datastore, clock } = c.get("services");
    if (!(await probeTableExists(datastore.sql, probe))) {
      return c.json({ rows: [], total_count: 0 }, 200);
    }
    const params: unknown[] = [connectionId, clock.now().toISOString()];
    const conditions = ["connection_id = $1", "collected_at > $2::timestamptz - interval '1 hour'"];
    if (query.database_name && output.includes("database_name")) {
      params.push(query.database_name);
      conditions.push(`database_name = $${params.length}`);
    }
    const excluded =
      query.exclude_schemas?.length === 1 && query.exclude_schemas[0] === "none"
        ? []
        : (query.exclude_schemas ?? DEFAULT_EXCLUDED_SCHEMAS);
    if (output.includes("schemaname") && excluded.length > 0) {
      params.push(excluded);
      conditions.push(`schemaname <> all($${params.length}::text[])`);
    }
    const limit = Math.min(query.limit ?? 20, MAX_LIMIT);
    const select = output
      .map((name) => {
        const column = probe.columns.find((col) => col.name === name);
        const ref = quoted(name);
        // Timestamps as RFC 3339 text; big numbers as JSON numbers.
        if (column?.type === "timestamptz") {
          return `to_json(${ref}) #>> '{}' as ${ref}`;
        }
        if (column?.type === "bigint" || column?.type === "numeric") {
          return `${ref}::float8 as ${ref}`;
        }
        return column?.type === "interval" || column?.type === "inet" ? `${ref}::text as ${ref}` : ref;
      })
      .join(", ");
    const rows = await datastore.sql.unsafe<Record<string, unknown>[]>(
      `with latest as (
         select distinct on (${dimensions.map(quoted).join(", ")}) ${select}
         from ${probeTable(probe)}
         where ${conditions.join(" and ")}
         order by ${dimensions.map(quoted).join(", ")}, collected_at desc
       )
       select *, count(*) over ()::int as "__total" from latest
       order by ${quoted(orderBy as string)} ${query.order === "asc" ? "asc" : "desc"} nulls last
       limit ${limit}`,
      params as never[],
    );
    const total = rows[0] ? Number(rows[0].__total) : 0;
    return c.json(
      {
        rows: rows.map(({ __total: _total, ...row }) => row),
        total_count: total,
      },
      200,
    );
  });
}
