import { type ColumnType, findProbeSpec, SYSTEM_SCHEMAS_SQL } from "@dbmon/monitoring";
import type { ProbeCollection, ProbeContext, ProbeRow } from "./types.js";

/**
 * A stored column read from a system view; its type is the catalogue's. `expr` defaults to
 * `<main alias>.<name>`; `needs` lists the `alias.column` pairs the expression reads (defaults to that
 * one column). When any of them is missing on the monitored server's version, the column is stored
 * as NULL instead of failing.
 */
export interface SourcedColumn {
  name: string;
  /** An expression, or a function of what exists giving one (null: store NULL). */
  expr?: string | ((catalogue: Catalogue) => string | null);
  needs?: readonly string[];
}

export function columns(...names: string[]): SourcedColumn[] {
  return names.map((name) => ({ name }));
}

export function column(name: string, expr?: SourcedColumn["expr"], needs?: readonly string[]): SourcedColumn {
  return { name, expr, needs };
}

/** What exists on the monitored server: relations (by alias) and their columns. */
export type Catalogue = (aliasOrColumn: string) => boolean;

/** A SELECT over system relations, adapted to what exists on the monitored server. */
export interface RelationQuery {
  /** alias → relation name in pg_catalog (or `schema.relation`). */
  relations: Readonly<Record<string, string>>;
  /** The alias whose absence means "nothing to collect" (an empty run). */
  main: string;
  columns: readonly SourcedColumn[];
  /** FROM clause (with joins), given what exists; `main` always exists when this is called. */
  from(catalogue: Catalogue): string;
  /**
   * The expression naming a listed object's schema, for a probe whose configuration may leave out
   * the system catalogs (the catalogue's `systemCatalogsOptional`).
   */
  schema?: string;
  /** Extra clauses after FROM (order by, limit; a WHERE only in a probe without `schema`). */
  tail?: string | ((catalogue: Catalogue) => string);
  /** Rows to store besides, or instead of, the query's (e.g. a sentinel row). */
  finish?(rows: ProbeRow[], context: ProbeContext, catalogue: Catalogue): Promise<ProbeRow[]>;
}

/** Column name → type of a catalogue probe. */
export type ColumnTypes = ReadonlyMap<string, ColumnType>;

/**
 * The catalogue's column types of a probe, checked against the columns a query selects: a query
 * that drifts from the catalogue fails when the collector loads, not when a run is stored.
 */
export function catalogueColumnTypes(probe: string, query: RelationQuery): ColumnTypes {
  const spec = findProbeSpec(probe);
  if (!spec) {
    throw new Error(`probe ${probe} is not in the catalogue`);
  }
  const selected = query.columns.map((col) => col.name).join(",");
  const stored = spec.columns.map((col) => col.name).join(",");
  if (selected !== stored) {
    throw new Error(`probe ${probe} selects (${selected}) but the catalogue stores (${stored})`);
  }
  return new Map(spec.columns.map((col) => [col.name, col.type]));
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** Reads which of the relations exist and their columns, in one catalogue query. */
export async function readCatalogue(
  context: ProbeContext,
  relations: Readonly<Record<string, string>>,
): Promise<Catalogue> {
  const entries = Object.entries(relations);
  const names = entries.map(([, relation]) => (relation.includes(".") ? relation : `pg_catalog.${relation}`));
  const rows = await context.query(
    `select r.name::text as name, coalesce(array_agg(a.attname::text) filter (where a.attname is not null), '{}') as cols
     from unnest(array[${names.map(quoteLiteral).join(", ")}]::text[]) as r(name)
     join pg_class c on c.oid = to_regclass(r.name)
     left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     group by r.name`,
  );
  const found = new Map(rows.map((row) => [String(row.name), new Set(row.cols as string[])]));
  const available = new Set<string>();
  entries.forEach(([alias], index) => {
    const cols = found.get(names[index] as string);
    if (cols) {
      available.add(alias);
      for (const col of cols) {
        available.add(`${alias}.${col}`);
      }
    }
  });
  return (key) => available.has(key);
}

/** SQL cast that makes the driver hand back a storable value of the column's type. */
function storable(expr: string, type: ColumnType): string {
  switch (type) {
    case "bigint":
    case "numeric":
      return `(${expr})::numeric::text`;
    case "integer":
      return `(${expr})::int`;
    case "double precision":
      return `(${expr})::float8`;
    case "timestamptz":
      return `(${expr})::timestamptz`;
    case "text":
      return `(${expr})::text`;
    default:
      return expr;
  }
}

/**
 * Builds the SELECT of a relation probe for what the monitored server has, without the system
 * catalogs' objects when `includeSystemCatalogs` is false and the probe names their schema.
 */
export function relationSelect(
  options: RelationQuery,
  catalogue: Catalogue,
  types: ColumnTypes,
  includeSystemCatalogs = true,
): string {
  const list = options.columns.map((col) => {
    const type = types.get(col.name) as ColumnType;
    let source: string | null;
    if (typeof col.expr === "function") {
      source = col.expr(catalogue);
    } else {
      const needs = col.needs ?? (col.expr === undefined ? [`${options.main}.${col.name}`] : []);
      source = needs.every((need) => catalogue(need)) ? (col.expr ?? `${options.main}.${col.name}`) : null;
    }
    const expr = source === null ? "null" : storable(source, type);
    return `${expr}::${sqlType(type)} as "${col.name}"`;
  });
  const tail = typeof options.tail === "function" ? options.tail(catalogue) : (options.tail ?? "");
  const where =
    options.schema !== undefined && !includeSystemCatalogs
      ? `where ${options.schema} not in ${SYSTEM_SCHEMAS_SQL}`
      : "";
  return `select ${list.join(",\n  ")}\nfrom ${options.from(catalogue)} ${where} ${tail}`;
}

/** The type the driver receives: big integers as text so that no digit is lost. */
function sqlType(type: ColumnType): string {
  switch (type) {
    case "bigint":
    case "numeric":
      return "text";
    default:
      return type;
  }
}

/**
 * A probe over system views that adapts to the server version by looking at which relations and
 * columns exist, so that a view or column missing on an older (or newer) release never fails it.
 */
export function relationProbe(options: RelationQuery & { name: string }): ProbeCollection {
  const types = catalogueColumnTypes(options.name, options);
  if (findProbeSpec(options.name)?.systemCatalogsOptional && options.schema === undefined) {
    throw new Error(`probe ${options.name} may leave out the system catalogs but names no schema`);
  }
  return { name: options.name, collect: (context) => collectRelation(options, types, context) };
}

/** One run of a relation query: empty when its main relation does not exist on the server. */
export async function collectRelation(
  options: RelationQuery,
  types: ColumnTypes,
  context: ProbeContext,
): Promise<ProbeRow[]> {
  const catalogue = await readCatalogue(context, options.relations);
  if (!catalogue(options.main)) {
    if (!options.finish) {
      context.absent();
      return [];
    }
    return options.finish([], context, catalogue);
  }
  const rows = await context.query(relationSelect(options, catalogue, types, context.includeSystemCatalogs));
  return options.finish ? options.finish(rows, context, catalogue) : rows;
}
