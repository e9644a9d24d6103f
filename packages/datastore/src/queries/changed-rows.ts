import type { TransactionSql } from "postgres";

/**
 * Changed-rows storage of per-object statistics (tables, indexes, sequences, functions, statements):
 * the one place that says how a full sample is stored and rebuilt.
 *
 * - `metrics."<probe>_runs"`: one row per run and database that had rows: its `collected_at` and the
 *   `keyframe_at` of the run whose rows are all stored (a keyframe; `keyframe_at = collected_at`).
 * - `metrics."<probe>_rows"`: the rows stored, with `object_key` (generated from the probe's key
 *   columns). A keyframe stores every object; a later run stores only the objects whose values
 *   changed since the previous run, the objects it adds (`added`), and a row for each object dropped
 *   since the previous run (`gone`: the key columns only). A run refers to a keyframe only in the
 *   same week (so a weekly partition never depends on an older one, and retention may drop old weeks
 *   whole), when the previous run is the one its collector remembers (a restart, a takeover by
 *   another collector, a failed store all make a keyframe), and while the objects dropped since the
 *   keyframe are no more than the run's own (each is still looked up by every later run, so a run
 *   never looks up many more objects than it has). The collector keeps to this (`@dbmon/collector`,
 *   `planChangedRows`).
 * - `metrics."<probe>"`: the view every reader reads, giving each run in full, as the table of that
 *   name gave before: each object of the run's keyframe, and each object added since, with its newest
 *   row stored from the keyframe up to the run, unless that row says it is gone. An insert into the
 *   view stores a keyframe (tests and benchmarks write so).
 *
 * Readers filtering on connection_id, database_name and collected_at reach the runs table's indexes;
 * each row of a run is then one index lookup (`<probe>_rows_object_idx`): linear in the rows read,
 * though each costs more than a row read in sequence from a table holding every run. What needs only
 * which runs exist (`max(collected_at)`) reads the runs table (`probeRunsTable` of @dbmon/monitoring):
 * through the view it would rebuild every run of its range.
 */
export interface ChangedRowsTable {
  schema: string;
  probe: string;
  /** Column definitions of the probe table (connection_id, database_name, collected_at first). */
  columnDefinitions: readonly string[];
  /** The probe's own columns, in catalogue order. */
  columns: readonly string[];
  /** Columns naming an object within a database. */
  key: readonly string[];
}

export function changedRowsTables(probe: string): { rows: string; runs: string } {
  return { rows: `${probe}_rows`, runs: `${probe}_runs` };
}

function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Text naming an object, NULL-safe and immutable (a generated column and an index key). */
export function objectKeyExpression(key: readonly string[]): string {
  return key.map((column) => `quote_nullable(${ident(column)}::text)`).join(" || ',' || ");
}

/**
 * Creates (or completes) the tables, indexes, view and insert trigger of a changed-rows probe, in the
 * caller's transaction under the metrics DDL lock. A probe table of an older version (a partitioned
 * table named `<probe>`, every run stored in full) becomes the rows table, each of its runs a keyframe.
 */
export async function ensureChangedRowsTables(tx: TransactionSql, table: ChangedRowsTable): Promise<void> {
  const { rows, runs } = changedRowsTables(table.probe);
  const schema = ident(table.schema);
  const view = `${schema}.${ident(table.probe)}`;
  const rowsTable = `${schema}.${ident(rows)}`;
  const runsTable = `${schema}.${ident(runs)}`;
  const [existing] = await tx<{ kind: string }[]>`
    select c.relkind::text as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = ${table.schema} and c.relname = ${table.probe}`;
  const upgrading = existing?.kind === "p";
  if (upgrading) {
    await upgradeFullTable(tx, table);
  }
  await tx.unsafe(
    `create table if not exists ${rowsTable} (${table.columnDefinitions.join(", ")}) partition by range (collected_at)`,
  );
  for (const definition of table.columnDefinitions.slice(3)) {
    await tx.unsafe(`alter table ${rowsTable} add column if not exists ${definition}`);
  }
  await tx.unsafe(
    `alter table ${rowsTable} add column if not exists object_key text not null
       generated always as (${objectKeyExpression(table.key)}) stored`,
  );
  // Objects added or dropped after a keyframe (older versions made a keyframe instead).
  await tx.unsafe(`alter table ${rowsTable} add column if not exists added boolean not null default false`);
  await tx.unsafe(`alter table ${rowsTable} add column if not exists gone boolean not null default false`);
  await tx.unsafe(
    `create index if not exists ${ident(`${rows}_added_idx`)}
       on ${rowsTable} (connection_id, database_name, collected_at) where added`,
  );
  await tx.unsafe(
    `create index if not exists ${ident(`${rows}_object_idx`)}
       on ${rowsTable} (connection_id, database_name, object_key, collected_at desc)`,
  );
  // A keyframe's rows, by run: led by collected_at, so that it can serve only whole runs. Led by the
  // connection (as `_run_idx` of the first version was), the planner took it for an object's newest
  // row too, reading backwards through every row of the database stored since the keyframe, filtering
  // on the object: a pass of the alerter grew with every run of the week.
  await tx.unsafe(`drop index if exists ${schema}.${ident(`${rows}_run_idx`)}`);
  await tx.unsafe(
    `create index if not exists ${ident(`${rows}_keyframe_idx`)} on ${rowsTable} (collected_at, connection_id, database_name)`,
  );
  await tx.unsafe(
    `create table if not exists ${runsTable} (
       connection_id integer not null references public.connections(id) on delete cascade,
       database_name text not null, collected_at timestamptz not null, keyframe_at timestamptz not null
     ) partition by range (collected_at)`,
  );
  await tx.unsafe(
    `create unique index if not exists ${ident(`${runs}_run_idx`)} on ${runsTable} (connection_id, database_name, collected_at)`,
  );
  await tx.unsafe(
    `create index if not exists ${ident(`${runs}_connection_collected_idx`)} on ${runsTable} (connection_id, collected_at desc)`,
  );
  if (upgrading) {
    await backfillKeyframes(tx, table);
  }
  await tx.unsafe(viewSql(view, rowsTable, runsTable, table.columns, table.key));
  const insertFunction = `${schema}.${ident(`${table.probe}_insert`)}`;
  const all = ["connection_id", "database_name", "collected_at", ...table.columns].map(ident);
  await tx.unsafe(
    `create or replace function ${insertFunction}() returns trigger language plpgsql as $body$
     begin
       insert into ${runsTable} (connection_id, database_name, collected_at, keyframe_at)
       values (new.connection_id, new.database_name, new.collected_at, new.collected_at)
       on conflict (connection_id, database_name, collected_at) do nothing;
       insert into ${rowsTable} (${all.join(", ")}) values (${all.map((name) => `new.${name}`).join(", ")});
       return new;
     end $body$`,
  );
  await tx.unsafe(
    `create or replace trigger ${ident(`${table.probe}_insert`)} instead of insert on ${view}
       for each row execute function ${insertFunction}()`,
  );
}

/**
 * Each run in full: every object of its keyframe (`k`) and every object added after it up to the run
 * (`a`, each once: its newest `added` row, and none for an object of the keyframe); in the keyframe
 * itself, `k`'s own rows (a keyframe may name an object twice), in a later run each object's newest
 * row stored up to the run, which is at the latest the keyframe's or its `added` row, left out when
 * it is `gone`. Without a lower bound on `collected_at`, the planner reads the weekly partitions
 * newest first, each backwards on `<probe>_rows_object_idx`, and stops at the first row: one index
 * descent per row read, however often the object changed.
 */
function viewSql(
  view: string,
  rowsTable: string,
  runsTable: string,
  columns: readonly string[],
  key: readonly string[],
): string {
  const list = (alias: string) => columns.map((column) => `${alias}.${ident(column)}`).join(", ");
  // The key columns come from the object's row in `o` (the same values: the rows share its
  // object_key), so that a filter on them (one table's history, one statement) narrows the objects
  // read instead of rebuilding every object first.
  const output = columns.map((column) => `${key.includes(column) ? "o" : "v"}.${ident(column)}`).join(", ");
  const sameObject = (alias: string, of: string) =>
    `${alias}.connection_id = ${of}.connection_id and ${alias}.database_name = ${of}.database_name
          and ${alias}.object_key = ${of}.object_key`;
  return `create or replace view ${view} as
    select r.connection_id, r.database_name, r.collected_at, ${output}
    from ${runsTable} r
    cross join lateral (
      select ${list("k")}, k.object_key from ${rowsTable} k
        where k.connection_id = r.connection_id and k.database_name = r.database_name
          and k.collected_at = r.keyframe_at
      union all
      select ${list("a")}, a.object_key from ${rowsTable} a
        where a.added and a.connection_id = r.connection_id and a.database_name = r.database_name
          and a.collected_at > r.keyframe_at and a.collected_at <= r.collected_at
          and not exists (select from ${rowsTable} x where ${sameObject("x", "a")} and x.collected_at = r.keyframe_at)
          and not exists (select from ${rowsTable} x where ${sameObject("x", "a")} and x.added
            and x.collected_at > a.collected_at and x.collected_at <= r.collected_at)) o
    cross join lateral (
      select ${list("o")}, false as gone where r.collected_at = r.keyframe_at
      union all
      (select ${list("s")}, s.gone from ${rowsTable} s
        where s.connection_id = r.connection_id and s.database_name = r.database_name
          and s.object_key = o.object_key and s.collected_at <= r.collected_at
          and r.collected_at > r.keyframe_at
        order by s.collected_at desc limit 1)) v
    where not v.gone`;
}

/** The full table of an older version becomes the rows table; its weekly partitions follow the name. */
async function upgradeFullTable(tx: TransactionSql, table: ChangedRowsTable): Promise<void> {
  const { rows } = changedRowsTables(table.probe);
  const schema = ident(table.schema);
  const partitions = await tx<{ name: string }[]>`
    select c.relname::text as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass(${`${schema}.${ident(table.probe)}`})`;
  await tx.unsafe(`alter table ${schema}.${ident(table.probe)} rename to ${ident(rows)}`);
  for (const { name } of partitions) {
    if (name.startsWith(`${table.probe}_`)) {
      const renamed = `${rows}_${name.slice(table.probe.length + 1)}`;
      await tx.unsafe(`alter table ${schema}.${ident(name)} rename to ${ident(renamed)}`);
    }
  }
}

/** After an upgrade: every run of the old table is a keyframe (its rows were all stored). */
async function backfillKeyframes(tx: TransactionSql, table: ChangedRowsTable): Promise<void> {
  const { rows, runs } = changedRowsTables(table.probe);
  const schema = ident(table.schema);
  const weeks = await tx<{ start: string; end: string }[]>`
    select distinct date_trunc('week', collected_at, 'UTC') as start,
      date_trunc('week', collected_at, 'UTC') + interval '7 days' as "end"
    from ${tx.unsafe(`${schema}.${ident(rows)}`)}`;
  for (const week of weeks) {
    const start = new Date(week.start);
    const name = `${runs}_${start.toISOString().slice(0, 10).replaceAll("-", "")}`;
    await tx.unsafe(
      `create table if not exists ${schema}.${ident(name)} partition of ${schema}.${ident(runs)}
         for values from ('${start.toISOString()}') to ('${new Date(week.end).toISOString()}')`,
    );
  }
  await tx.unsafe(
    `insert into ${schema}.${ident(runs)} (connection_id, database_name, collected_at, keyframe_at)
     select distinct connection_id, database_name, collected_at, collected_at from ${schema}.${ident(rows)}
     on conflict do nothing`,
  );
}
