import { advisoryLocks, type Sql } from "@dbmon/datastore";
import { collected, settingAt } from "./metric-sql.js";

/** How old a table's latest statistics may be to count (the metric's freshness window). */
export const AUTOVACUUM_FRESHNESS_SECONDS = 900;

/**
 * How far back a table newly found past its trigger is traced to where it crossed. A crossing older
 * than this counts from this far back: the exact hour matters only below the rule's threshold.
 */
export const CROSSING_LOOKBACK_HOURS = 24;

/**
 * Whether the table of statistics row `a` is past autovacuum's trigger: from autovacuum's own row
 * estimate (negative: never estimated, counts as 0); rows collected before reltuples was fall back
 * to n_live_tup. Needs the joins of `triggerSettings`.
 */
const pastTrigger = `a.n_dead_tup > coalesce(vt.value, 50)
  + coalesce(vs.value, 0.2) * coalesce(greatest(a.reltuples, 0), a.n_live_tup)`;
const triggerSettings = `${settingAt("autovacuum_vacuum_threshold", "vt")}
  ${settingAt("autovacuum_vacuum_scale_factor", "vs")}`;
const vacuumedAt = "greatest(a.last_vacuum, a.last_autovacuum)";
const sameTable = (x: string, y: string) =>
  `${x}.connection_id = ${y}.connection_id and ${x}.database_name = ${y}.database_name
   and ${x}.schemaname = ${y}.schemaname and ${x}.relname = ${y}.relname`;

/**
 * Every table of each database's latest collection ($2, $1], whether it is past its trigger and
 * when it was last vacuumed.
 */
const currentTables = `
  latest as materialized (
    select connection_id, database_name, max(collected_at) as collected_at
    from ${collected("pg_stat_all_tables")} a group by connection_id, database_name),
  current_tables as materialized (
    select a.connection_id, a.database_name, a.schemaname, a.relname, a.collected_at,
      ${vacuumedAt} as vacuumed_at, ${pastTrigger} as past
    from latest l join metrics.pg_stat_all_tables a
      on a.connection_id = l.connection_id and a.collected_at = l.collected_at and a.database_name = l.database_name
    ${triggerSettings})`;

/** Crossings that ended: the table is below its trigger again, was vacuumed, or is gone. */
const forgetEnded = `
  with ${currentTables}
  delete from public.autovacuum_crossings x using latest l
  where x.connection_id = l.connection_id and x.database_name = l.database_name
    and not exists (
      select 1 from current_tables c
      where c.past and c.connection_id = x.connection_id and c.database_name = x.database_name
        and c.schemaname = x.schema_name and c.relname = x.relation_name
        and c.vacuumed_at is not distinct from x.vacuumed_at)`;

/**
 * Tables newly past their trigger, with the first collection of their current run of collections
 * past it since the same vacuum ($3 bounds the look back): only their connections' recent rows are
 * read, and only when a table crosses.
 */
const recordNew = `
  with ${currentTables},
  crossing as materialized (
    select c.* from current_tables c
    where c.past and not exists (
      select 1 from public.autovacuum_crossings x
      where x.connection_id = c.connection_id and x.database_name = c.database_name
        and x.schema_name = c.schemaname and x.relation_name = c.relname)),
  history as materialized (
    select a.connection_id, a.database_name, a.schemaname, a.relname, a.collected_at,
      (${pastTrigger}) and ${vacuumedAt} is not distinct from n.vacuumed_at as past
    from (select distinct connection_id from crossing) nc
    cross join lateral (select * from metrics.pg_stat_all_tables
      where connection_id = nc.connection_id and collected_at > $3::timestamptz and collected_at <= $1::timestamptz) a
    join crossing n on ${sameTable("n", "a")}
    ${triggerSettings}),
  streak as (
    select h.connection_id, h.database_name, h.schemaname, h.relname, min(h.collected_at) as crossed_at
    from history h join (
      select connection_id, database_name, schemaname, relname,
        coalesce(max(collected_at) filter (where not past), '-infinity') as broken_at
      from history group by connection_id, database_name, schemaname, relname) b on ${sameTable("b", "h")}
    where h.collected_at > b.broken_at
    group by h.connection_id, h.database_name, h.schemaname, h.relname)
  insert into public.autovacuum_crossings
    (connection_id, database_name, schema_name, relation_name, crossed_at, vacuumed_at)
  select n.connection_id, n.database_name, n.schemaname, n.relname, coalesce(s.crossed_at, n.collected_at),
    n.vacuumed_at
  from crossing n left join streak s on ${sameTable("s", "n")}
  on conflict do nothing`;

/**
 * Brings `autovacuum_crossings` up to date with the latest collection of every database: forgets
 * crossings that ended and records new ones from when they began. One alerter at a time (the others
 * wait and then find nothing to do), so that an evaluation never reads a half-updated state.
 */
export async function updateAutovacuumCrossings(sql: Sql, now: Date): Promise<void> {
  const parameters = [
    now.toISOString(),
    new Date(now.getTime() - AUTOVACUUM_FRESHNESS_SECONDS * 1000).toISOString(),
    new Date(now.getTime() - CROSSING_LOOKBACK_HOURS * 3600 * 1000).toISOString(),
  ];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${advisoryLocks.autovacuumCrossings})`;
    await tx.unsafe(forgetEnded, parameters.slice(0, 2));
    await tx.unsafe(recordNew, parameters);
  });
}
