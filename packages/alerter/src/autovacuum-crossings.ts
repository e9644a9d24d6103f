import { advisoryLocks, type Sql } from "@dbmon/datastore";
import { probeRunsTable } from "@dbmon/monitoring";
import { collectedRuns, settingAt } from "./metric-sql.js";

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
 * to n_live_tup (greatest() would take a null for 0). Needs the joins of `triggerSettings`.
 */
const pastTrigger = `a.n_dead_tup > coalesce(vt.value, 50)
  + coalesce(vs.value, 0.2) * case when a.reltuples is null then a.n_live_tup else greatest(a.reltuples, 0) end`;
const triggerSettings = `${settingAt("autovacuum_vacuum_threshold", "vt")}
  ${settingAt("autovacuum_vacuum_scale_factor", "vs")}`;
const vacuumedAt = "greatest(a.last_vacuum, a.last_autovacuum)";
const sameTable = (x: string, y: string) =>
  `${x}.connection_id = ${y}.connection_id and ${x}.database_name = ${y}.database_name
   and ${x}.schemaname = ${y}.schemaname and ${x}.relname = ${y}.relname`;

/**
 * Each database's latest collection ($2, $1] that the crossings do not reflect yet (a newer one than
 * `autovacuum_crossing_syncs` says; a collection already synced changes nothing), then every table
 * of it, whether it is past its trigger and when it was last vacuumed: read once per update into
 * tables of the transaction, for both statements (rebuilding the changed-rows statistics of every
 * database twice was a good part of an alerter's pass at 1,000 databases).
 */
const currentTables = {
  create: [
    `create temp table latest (connection_id integer, database_name text, collected_at timestamptz)
       on commit drop`,
    `create temp table current_tables (connection_id integer, database_name text, schemaname text,
       relname text, collected_at timestamptz, vacuumed_at timestamptz, past boolean) on commit drop`,
  ],
  /** Parameters $1 and $2. */
  fillLatest: `insert into latest
   select a.connection_id, a.database_name, max(a.collected_at)
   from ${collectedRuns("pg_stat_all_tables")} a
   left join public.autovacuum_crossing_syncs s
     on s.connection_id = a.connection_id and s.database_name = a.database_name
   group by a.connection_id, a.database_name, s.synced_at
   having max(a.collected_at) > coalesce(s.synced_at, '-infinity')`,
  /** Parameter $1 (the settings in force). */
  fillCurrent: `insert into current_tables
   select a.connection_id, a.database_name, a.schemaname, a.relname, a.collected_at,
     ${vacuumedAt}, ${pastTrigger}
   from latest l join metrics.pg_stat_all_tables a
     on a.connection_id = l.connection_id and a.collected_at = l.collected_at and a.database_name = l.database_name
   ${triggerSettings}`,
};

/** Crossings that ended: the table is below its trigger again, was vacuumed, or is gone. */
const forgetEnded = `
  delete from public.autovacuum_crossings x using latest l
  where x.connection_id = l.connection_id and x.database_name = l.database_name
    and not exists (
      select 1 from current_tables c
      where c.past and c.connection_id = x.connection_id and c.database_name = x.database_name
        and c.schemaname = x.schema_name and c.relname = x.relation_name
        and c.vacuumed_at is not distinct from x.vacuumed_at)`;

/**
 * Tables newly past their trigger, from when. Where the crossings were brought up to date with the
 * database's collection before the latest, a table without one crossed at the latest collection.
 * Elsewhere (the database's first update, or the alerter was away) the first collection of the
 * table's current run past its trigger since the same vacuum, traced back as far as $2: only those
 * databases' recent rows are read, and only then.
 */
const recordNew = `
  with continuity as materialized (
    select l.connection_id, l.database_name,
      coalesce(s.synced_at >= p.previous_at, p.previous_at is null) as continuous
    from latest l
    left join public.autovacuum_crossing_syncs s
      on s.connection_id = l.connection_id and s.database_name = l.database_name
    cross join lateral (
      select max(collected_at) as previous_at from ${probeRunsTable("pg_stat_all_tables")} a
      where a.connection_id = l.connection_id and a.database_name = l.database_name
        and a.collected_at < l.collected_at and a.collected_at > $2::timestamptz) p),
  crossing as materialized (
    select c.*, k.continuous from current_tables c
    join continuity k on k.connection_id = c.connection_id and k.database_name = c.database_name
    where c.past and not exists (
      select 1 from public.autovacuum_crossings x
      where x.connection_id = c.connection_id and x.database_name = c.database_name
        and x.schema_name = c.schemaname and x.relation_name = c.relname)),
  traced as materialized (select * from crossing where not continuous),
  history as materialized (
    select a.connection_id, a.database_name, a.schemaname, a.relname, a.collected_at,
      (${pastTrigger}) and ${vacuumedAt} is not distinct from n.vacuumed_at as past
    from (select distinct connection_id from traced) nc
    cross join lateral (select * from metrics.pg_stat_all_tables
      where connection_id = nc.connection_id and collected_at > $2::timestamptz and collected_at <= $1::timestamptz) a
    join traced n on ${sameTable("n", "a")}
    ${triggerSettings}),
  streak as (
    select connection_id, database_name, schemaname, relname, min(collected_at) as crossed_at
    from (select h.*, max(case when not past then collected_at end)
            over (partition by connection_id, database_name, schemaname, relname) as broken_at
          from history h) h
    where collected_at > coalesce(broken_at, '-infinity')
    group by connection_id, database_name, schemaname, relname),
  synced as (
    insert into public.autovacuum_crossing_syncs (connection_id, database_name, synced_at)
    select connection_id, database_name, collected_at from latest
    on conflict (connection_id, database_name) do update set synced_at = excluded.synced_at)
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
  const at = now.toISOString();
  const freshest = new Date(now.getTime() - AUTOVACUUM_FRESHNESS_SECONDS * 1000).toISOString();
  const lookback = new Date(now.getTime() - CROSSING_LOOKBACK_HOURS * 3600 * 1000).toISOString();
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${advisoryLocks.autovacuumCrossings})`;
    for (const statement of currentTables.create) {
      await tx.unsafe(statement);
    }
    await tx.unsafe(currentTables.fillLatest, [at, freshest]);
    await tx.unsafe(currentTables.fillCurrent, [at]);
    await tx.unsafe("analyze latest, current_tables");
    await tx.unsafe(forgetEnded);
    await tx.unsafe(recordNew, [at, lookback]);
  });
}
