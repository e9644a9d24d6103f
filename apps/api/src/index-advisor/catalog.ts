import { quoteIdent, sqlLiteral } from "../sql/quoting.js";

/**
 * What the advisor reads of the target database's catalog: the tables the statements name, their
 * columns (type, and values from pg_stats to stand in for `$n` parameters) and their indexes.
 */
export interface CatalogColumn {
  name: string;
  /** The type as format_type writes it (a valid cast target). */
  type: string;
  /** The most common value, if pg_stats has one. */
  common: string | null;
  /** Histogram bounds at 10 %, 50 % and 90 % (nulls without a histogram). */
  quantiles: (string | null)[];
}

export interface CatalogIndex {
  name: string;
  method: string;
  valid: boolean;
  partial: boolean;
  /** Key columns in order (null for an expression), then the INCLUDE columns. */
  keys: (string | null)[];
  include: string[];
}

export interface CatalogTable {
  schema: string;
  name: string;
  rows: number;
  columns: CatalogColumn[];
  indexes: CatalogIndex[];
}

/** A table as a statement names it, in the form to_regclass reads (resolved with the session's search_path). */
export function tableKey(schema: string | undefined, name: string): string {
  return schema === undefined ? quoteIdent(name) : `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/**
 * One statement reading the tables named by `keys` (tableKey forms): one row per table found, with
 * the key it was asked for. Tables of pg_catalog and information_schema, views and other relations
 * are left out: no index can be made on them.
 */
export function catalogQuery(keys: readonly string[]): string {
  const wanted = keys.map((key, at) => `(${at}, ${sqlLiteral(key)})`).join(", ");
  return `select w.ref, n.nspname, c.relname, c.reltuples::float8,
  (select json_agg(json_build_object('name', a.attname, 'type', pg_catalog.format_type(a.atttypid, a.atttypmod),
      'common', (s.most_common_vals::text::text[])[1],
      'quantiles', (select json_agg(h.b[greatest(1, ceil(pg_catalog.array_length(h.b, 1) * q.f))::int] order by q.f)
                      from (values (0.1), (0.5), (0.9)) q(f))) order by a.attnum)
     from pg_attribute a
     left join pg_stats s on s.schemaname = n.nspname and s.tablename = c.relname and s.attname = a.attname
     left join lateral (select s.histogram_bounds::text::text[] as b) h on true
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)::text as columns,
  (select json_agg(json_build_object('name', i.relname, 'method', am.amname, 'valid', x.indisvalid,
      'partial', x.indpred is not null, 'key_count', x.indnkeyatts,
      'columns', (select json_agg(k.attname order by u.pos)
                    from unnest(x.indkey::int2[]) with ordinality as u(attnum, pos)
                    left join pg_attribute k on k.attrelid = c.oid and k.attnum = u.attnum and u.attnum > 0)))
     from pg_index x join pg_class i on i.oid = x.indexrelid join pg_am am on am.oid = i.relam
    where x.indrelid = c.oid)::text as indexes
from (values ${wanted}) as w(ref, name)
join pg_class c on c.oid = pg_catalog.to_regclass(w.name)
join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'm', 'p') and n.nspname not in ('pg_catalog', 'information_schema')`;
}

/** The rows of catalogQuery, by the key each table was asked for. */
export function readCatalog(keys: readonly string[], rows: (string | null)[][]): Map<string, CatalogTable> {
  const tables = new Map<string, CatalogTable>();
  for (const [ref, schema, name, reltuples, columns, indexes] of rows) {
    const key = keys[Number(ref)];
    if (key === undefined || schema === null || schema === undefined || !name) {
      continue;
    }
    tables.set(key, {
      schema,
      name,
      rows: Math.max(0, Number(reltuples ?? 0)),
      columns: parseJson<CatalogColumn[]>(columns) ?? [],
      indexes: (parseJson<RawIndex[]>(indexes) ?? []).map((index) => ({
        name: index.name,
        method: index.method,
        valid: index.valid,
        partial: index.partial,
        keys: (index.columns ?? []).slice(0, index.key_count),
        include: (index.columns ?? []).slice(index.key_count).filter((column): column is string => !!column),
      })),
    });
  }
  return tables;
}

interface RawIndex {
  name: string;
  method: string;
  valid: boolean;
  partial: boolean;
  key_count: number;
  columns: (string | null)[] | null;
}

function parseJson<T>(text: string | null | undefined): T | undefined {
  if (!text) {
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
