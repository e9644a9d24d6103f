/** SQL fragments the metric queries (and the state some of them keep) are built from. */
import { findProbeSpec, probeRunsTable, storedOncePerServer } from "@dbmon/monitoring";

/**
 * Which connections read a server's rows, and under which connection they are stored: the view of
 * migration 0029 (`public` is on the datastore sessions' search path), unless a statement's WITH
 * names a narrower one.
 */
export const SERVER_READERS = "dbmon_connection_servers";

/**
 * Rows of a metrics table collected in the range, reached through each connection: the tables' index
 * leads with connection_id, so a short range (the latest collections) is a few index lookups per
 * connection instead of a scan of the week's partition.
 */
export const collected = (table: string, where = "true") => rowsBetween(table, "collected_at", "$2", where);

/**
 * Rows of a metrics table whose `time` lies in (`from`, $1], reached through each connection as
 * `collected` does: for tables whose time column has another name (the activity sampler's), and for
 * queries that read some history before the range ($2).
 */
export const rowsBetween = (table: string, time: string, from: string, where = "true") => {
  const probe = findProbeSpec(table);
  if (!probe || !storedOncePerServer(probe)) {
    return rowsOf(`metrics.${table}`, time, from, where);
  }
  // A server-wide probe's rows are stored once per server: each connection reads its server's, as
  // its own (the rules that evaluate them decide which connection alerts for the server). The view
  // is named unqualified so that an evaluation may shadow it (`ONE_READER_PER_SERVER`).
  const columns = [time, ...probe.columns.map((column) => column.name)].map((name) => `"${name}"`);
  return `(select c.connection_id, t.* from ${SERVER_READERS} c
    cross join lateral (select ${columns.join(", ")} from metrics.${table}
      where connection_id = c.server_connection_id
      and ${time} > ${from}::timestamptz and ${time} <= $1::timestamptz and ${where}) t)`;
};

/**
 * A WITH item for a statement of values that are whole-server only (`server-values.ts`): each
 * server's rows read once, by the connection they are stored under, instead of by each of its
 * connections (100 at the fleet benchmark's servers) to be reduced to one value per server after.
 */
export const ONE_READER_PER_SERVER = `${SERVER_READERS} as materialized (
    select * from public.dbmon_connection_servers where connection_id = server_connection_id)`;

/**
 * The runs of a metrics table collected in the range (`connection_id`, `collected_at`, and
 * `database_name` for a database probe), as `collected` reaches them: what finding the latest
 * collection needs, without rebuilding the rows of a changed-rows probe (`probeRunsTable`; those are
 * database probes, stored under each connection).
 */
export const collectedRuns = (table: string) =>
  findProbeSpec(table)?.changedRows
    ? rowsOf(probeRunsTable(table), "collected_at", "$2", "true")
    : collected(table);

const rowsOf = (relation: string, time: string, from: string, where: string) =>
  `(select t.* from public.connections c
    cross join lateral (select * from ${relation} where connection_id = c.id
      and ${time} > ${from}::timestamptz and ${time} <= $1::timestamptz and ${where}) t)`;

/**
 * A join giving, as `alias.value`, the value a setting had when sample `a` was collected: the stored
 * snapshot in force then (pg_settings is stored only when it changes); the first snapshot also covers
 * the time before it, as nothing better is known. Set-based rather than a lookup per sample, which a
 * week of history would make thousands of.
 */
export const settingAt = (name: string, alias: string) => `
  left join (select connection_id, setting::float8 as value,
      case when lag(collected_at) over w is null then '-infinity'::timestamptz else collected_at end as since,
      coalesce(lead(collected_at) over w, 'infinity'::timestamptz) as until
    from metrics.pg_settings where name = '${name}' and collected_at <= $1::timestamptz
    window w as (partition by connection_id order by collected_at)) ${alias}
  on ${alias}.connection_id = a.connection_id and a.collected_at >= ${alias}.since and a.collected_at < ${alias}.until`;

export const seconds = (expression: string) => `extract(epoch from ${expression})::float8`;
