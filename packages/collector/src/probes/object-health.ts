import type { ProbeCollection } from "./types.js";

/*
 * What the health checks (@dbmon/monitoring's health-checks module) judge per database and no
 * statistics view holds. One row per finding, of a `kind`:
 *   invalid_index       an index left invalid (a failed CREATE INDEX CONCURRENTLY); detail: its definition
 *   duplicate_index     a valid index another valid index of the table makes redundant; detail: which one
 *   unused_index        a non-unique index of 1 MiB or more never scanned since the statistics were reset
 *   invalid_constraint  a constraint added NOT VALID and never validated; detail: its definition
 *   sequence            a sequence past half its range; value: percent used
 *   table_bloat         estimated wasted bytes of a table of 1 MiB or more (value), its size (size_bytes)
 *   index_bloat         the same for a btree index
 *   collected           one row per run, so that a run that found nothing is told from no run
 * Bloat is estimated from the planner's statistics (pg_class, pg_stats) without an extension: the
 * pages the live rows would fill at their average width and the fillfactor, against the pages the
 * relation has. Relations whose columns were never analyzed are left out rather than guessed.
 * Each kind keeps at most 200 rows, worst first.
 */

const KIND_ROW_LIMIT = 200;
/** Relations smaller than this are not worth a finding about size (bloat, unused). */
const MIN_RELATION_BYTES = 1024 * 1024;

/** A relation's fillfactor (percent) from its storage options, else the access method's default. */
const fillfactor = (reloptions: string, byDefault: number) =>
  `coalesce((select option_value::int from pg_options_to_table(${reloptions})
    where option_name = 'fillfactor'), ${byDefault})`;

/** The findings of a bloat estimate: the relations with pages to spare, the most wasted first. */
const bloatFindings = (kind: string, estimates: string, objectName: string) => `
  select '${kind}' as kind, schemaname, relname, ${objectName} as object_name,
    (wasted_pages * bs)::float8 as value, size_bytes, null::text as detail
  from ${estimates} where wasted_pages > 0
  order by wasted_pages desc limit ${KIND_ROW_LIMIT}`;

const sql = `
with params as (
  select current_setting('block_size')::int as bs
),
user_tables as (
  select c.oid, n.nspname::text as schemaname, c.relname::text as relname, c.relpages, c.reltuples,
    c.reloptions
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'm')
    and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname !~ '^pg_toast'
),
indexes as (
  select x.indexrelid, x.indrelid, t.schemaname, t.relname, i.relname::text as indexname, i.relam,
    x.indisvalid, x.indisunique, x.indisprimary,
    string_to_array(x.indkey::text, ' ')::int2[] as keys,
    string_to_array(x.indclass::text, ' ')::oid[] as classes,
    coalesce(pg_get_expr(x.indexprs, x.indrelid), '') as exprs,
    coalesce(pg_get_expr(x.indpred, x.indrelid), '') as pred,
    i.relpages, i.reltuples, i.reloptions,
    pg_relation_size(x.indexrelid) as bytes,
    exists (select 1 from pg_constraint k where k.conindid = x.indexrelid) as backs_constraint
  from pg_index x
  join pg_class i on i.oid = x.indexrelid
  join user_tables t on t.oid = x.indrelid
),
invalid_indexes as (
  select 'invalid_index' as kind, schemaname, relname, indexname as object_name, null::float8 as value,
    bytes as size_bytes, pg_get_indexdef(indexrelid) as detail
  from indexes where not indisvalid
  order by bytes desc limit ${KIND_ROW_LIMIT}
),
duplicate_indexes as (
  -- d is redundant when c, another valid index of the table with the same method, expressions and
  -- predicate, starts with d's columns and operator classes. d may be unique only when c has the
  -- very same columns and is unique too; of two identical indexes the later one is reported.
  select 'duplicate_index' as kind, d.schemaname, d.relname, d.indexname as object_name, null::float8 as value,
    d.bytes as size_bytes, 'covered by ' || c.indexname as detail
  from indexes d
  cross join lateral (
    select c.indexname from indexes c
    where c.indrelid = d.indrelid and c.indexrelid <> d.indexrelid and c.indisvalid
      and c.relam = d.relam and c.exprs = d.exprs and c.pred = d.pred
      and c.keys[1:cardinality(d.keys)] = d.keys and c.classes[1:cardinality(d.classes)] = d.classes
      and (cardinality(c.keys) > cardinality(d.keys) or c.indexrelid < d.indexrelid)
      and (not d.indisunique or (c.indisunique and cardinality(c.keys) = cardinality(d.keys)))
    order by c.indexrelid limit 1) c
  where d.indisvalid and not d.indisprimary and not d.backs_constraint
  order by d.bytes desc limit ${KIND_ROW_LIMIT}
),
unused_indexes as (
  select 'unused_index' as kind, i.schemaname, i.relname, i.indexname as object_name,
    s.idx_scan::float8 as value, i.bytes as size_bytes, pg_get_indexdef(i.indexrelid) as detail
  from indexes i join pg_stat_all_indexes s on s.indexrelid = i.indexrelid
  where i.indisvalid and not i.indisunique and not i.backs_constraint and s.idx_scan = 0
    and i.bytes >= ${MIN_RELATION_BYTES}
  order by i.bytes desc limit ${KIND_ROW_LIMIT}
),
invalid_constraints as (
  select 'invalid_constraint' as kind, t.schemaname, t.relname, k.conname::text as object_name,
    null::float8 as value, null::int8 as size_bytes, pg_get_constraintdef(k.oid) as detail
  from pg_constraint k join user_tables t on t.oid = k.conrelid
  where not k.convalidated
  order by t.schemaname, t.relname, k.conname limit ${KIND_ROW_LIMIT}
),
sequences as (
  select 'sequence' as kind, s.schemaname::text, s.sequencename::text as relname, s.sequencename::text as object_name,
    -- values handed out of the values there are
    100 * (case when s.increment_by > 0 then s.last_value::numeric - s.min_value
                else s.max_value::numeric - s.last_value end + 1)
        / (s.max_value::numeric - s.min_value + 1) as used_percent,
    null::int8 as size_bytes,
    s.data_type::text || ', last value ' || s.last_value || ' of ' ||
      case when s.increment_by > 0 then s.max_value else s.min_value end as detail
  from pg_sequences s
  where s.last_value is not null and not s.cycle
),
column_stats as (
  -- Per table: the average width of a row's data, whether any column has nulls, how many of its
  -- columns have statistics, and how many columns it has.
  select t.oid,
    sum((1 - coalesce(s.null_frac, 0)) * coalesce(s.avg_width, 0)) as data_width,
    bool_or(coalesce(s.null_frac, 0) > 0) as has_nulls,
    count(s.attname) as analyzed, count(*) as columns
  from user_tables t
  join pg_attribute a on a.attrelid = t.oid and a.attnum > 0 and not a.attisdropped
  left join pg_stats s on s.schemaname = t.schemaname and s.tablename = t.relname and s.attname = a.attname
    and not s.inherited
  where t.relpages::int8 * (select bs from params) >= ${MIN_RELATION_BYTES}
  group by t.oid
),
table_estimates as (
  select t.schemaname, t.relname, t.relpages::int8 * p.bs as size_bytes,
    t.relpages - ceil(t.reltuples / greatest(floor(
      (p.bs - 24) * ${fillfactor("t.reloptions", 100)} / 100.0
      -- a tuple: its 23-byte header (and null bitmap) aligned to 8, its data aligned to 8, a 4-byte line pointer
      / (8 * ceil((8 * ceil((23 + case when c.has_nulls then ceil(c.columns / 8.0) else 0 end) / 8.0)
                   + c.data_width) / 8.0) + 4)), 1)) as wasted_pages,
    p.bs
  from user_tables t join column_stats c on c.oid = t.oid cross join params p
  where c.analyzed = c.columns and t.reltuples >= 0
),
table_bloat as (${bloatFindings("table_bloat", "table_estimates", "relname")}),
index_columns as (
  select i.indexrelid,
    sum((1 - coalesce(s.null_frac, 0)) * coalesce(s.avg_width, 0)) as key_width,
    count(s.attname) as analyzed, count(*) as columns
  from indexes i
  cross join unnest(i.keys) as k(attnum)
  left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
  left join pg_stats s on s.schemaname = i.schemaname and s.tablename = i.relname and s.attname = a.attname
    and not s.inherited
  where i.indisvalid and i.exprs = '' and i.relam = (select oid from pg_am where amname = 'btree')
    and i.relpages::int8 * (select bs from params) >= ${MIN_RELATION_BYTES}
  group by i.indexrelid
),
index_estimates as (
  -- A btree leaf entry: its 8-byte header and key aligned to 8, a 4-byte line pointer; a page keeps
  -- 24 bytes of header and 16 of btree data, filled to the fillfactor (90 by default); one meta page.
  select i.schemaname, i.relname, i.indexname, i.relpages::int8 * p.bs as size_bytes,
    i.relpages - 1 - ceil(i.reltuples / greatest(floor(
      (p.bs - 24 - 16) * ${fillfactor("i.reloptions", 90)} / 100.0
      / (8 * ceil((8 + c.key_width) / 8.0) + 4)), 1)) as wasted_pages,
    p.bs
  from indexes i join index_columns c on c.indexrelid = i.indexrelid cross join params p
  where c.analyzed = c.columns and i.reltuples >= 0
),
index_bloat as (${bloatFindings("index_bloat", "index_estimates", "indexname")})
select kind, schemaname, relname, object_name, value, size_bytes::numeric::text as size_bytes, detail from (
  select * from invalid_indexes
  union all select * from duplicate_indexes
  union all select * from unused_indexes
  union all select * from invalid_constraints
  union all (select kind, schemaname, relname, object_name, used_percent::float8, size_bytes, detail
             from sequences where used_percent >= 50 order by used_percent desc limit ${KIND_ROW_LIMIT})
  union all select * from table_bloat
  union all select * from index_bloat
  union all select 'collected', null, null, null, null, null, null
) findings
order by kind, schemaname, relname, object_name`;

export const pgObjectHealth: ProbeCollection = {
  name: "pg_object_health",
  // pg_sequences exists since PostgreSQL 10.
  queries: [{ minVersion: 100000, sql }],
};
