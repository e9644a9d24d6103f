import { quoteIdent } from "../sql/quoting.js";
import type { CatalogIndex, CatalogTable } from "./catalog.js";
import { tableKey } from "./catalog.js";
import type { ColumnUse, StatementColumns } from "./statement-columns.js";

/** One key column of an index. */
export interface IndexKey {
  column: string;
  descending: boolean;
}

/** A B-tree index the advisor may propose. */
export interface Candidate {
  table: CatalogTable;
  keys: IndexKey[];
  include: string[];
  /** Indexes (into the workload) of the statements it was drawn from. */
  statements: Set<number>;
}

/** A candidate an existing index already serves (same leading columns). */
export interface CoveredCandidate {
  candidate: Candidate;
  existing: CatalogIndex;
}

/** Columns of one index: few enough that an index stays cheaper to read than its table. */
const MAX_KEYS = 4;
const MAX_COLUMNS = 6;
/** Candidates costed per request at most (each costs EXPLAINs of the statements on its table). */
export const MAX_CANDIDATES = 60;

/** The table a use names, with the column checked against the catalog; undefined when unknown. */
export function resolveUse(
  columns: StatementColumns,
  tables: ReadonlyMap<string, CatalogTable>,
  use: Pick<ColumnUse, "level" | "qualifier" | "column">,
): { key: string; table: CatalogTable } | undefined {
  for (
    let level: number | undefined = use.level;
    level !== undefined;
    level = columns.levels[level]?.parent
  ) {
    const matches = (columns.levels[level]?.tables ?? []).flatMap((reference) => {
      const key = tableKey(reference.schema, reference.name);
      const table = tables.get(key);
      const named = use.qualifier === undefined || use.qualifier === reference.alias;
      return table && named && table.columns.some((column) => column.name === use.column)
        ? [{ key, table }]
        : [];
    });
    // Two tables with the column and no qualifier: the server would call it ambiguous.
    if (matches.length === 1) {
      return matches[0];
    }
    if (matches.length > 1) {
      return undefined;
    }
  }
  return undefined;
}

/**
 * The candidates of one statement: for each table it filters, joins or sorts, single columns, then
 * equality and join columns first followed by one range column or the sort columns, and that index
 * with the statement's other columns of the table as INCLUDE columns (an index-only scan).
 */
export function statementCandidates(
  statementIndex: number,
  columns: StatementColumns,
  tables: ReadonlyMap<string, CatalogTable>,
): Candidate[] {
  const byTable = new Map<string, { table: CatalogTable; uses: ColumnUse[]; selectsAll: boolean }>();
  for (const use of columns.uses) {
    const resolved = resolveUse(columns, tables, use);
    if (!resolved) {
      continue;
    }
    const entry = byTable.get(resolved.key) ?? { table: resolved.table, uses: [], selectsAll: false };
    entry.uses.push(use);
    entry.selectsAll ||= columns.levels[use.level]?.selectsAll ?? false;
    byTable.set(resolved.key, entry);
  }
  const candidates: Candidate[] = [];
  for (const { table, uses, selectsAll } of byTable.values()) {
    const named = (roles: string[]) =>
      unique(uses.filter((use) => roles.includes(use.role)).map((use) => use.column));
    const equality = named(["equality", "join"]).slice(0, MAX_KEYS - 1);
    const range = named(["range"]).filter((column) => !equality.includes(column));
    const order = sortKeys(columns, uses);
    const make = (keys: IndexKey[], include: string[] = []): Candidate => ({
      table,
      keys,
      include,
      statements: new Set([statementIndex]),
    });
    const plain = (names: string[]) => names.map((column) => ({ column, descending: false }));
    for (const column of [...equality, ...range]) {
      candidates.push(make(plain([column])));
    }
    const composites: IndexKey[][] = [];
    if (equality.length > 1) {
      composites.push(plain(equality));
    }
    if (equality.length > 0 && range[0] !== undefined) {
      composites.push(plain([...equality, range[0]]));
    }
    if (order.length > 0 && order.length + equality.length <= MAX_KEYS) {
      composites.push([...plain(equality), ...order.filter((key) => !equality.includes(key.column))]);
    }
    candidates.push(...composites.filter((keys) => keys.length > 1).map((keys) => make(keys)));
    const widest = [
      ...composites,
      ...plain(equality.length > 0 ? [equality[0] as string] : range.slice(0, 1)).map((key) => [key]),
    ]
      .filter((keys) => keys.length > 0)
      .sort((a, b) => b.length - a.length)[0];
    if (widest && !selectsAll) {
      const keyNames = widest.map((key) => key.column);
      const include = named(["equality", "join", "range", "order", "output"]).filter(
        (column) => !keyNames.includes(column),
      );
      if (include.length > 0 && keyNames.length + include.length <= MAX_COLUMNS) {
        candidates.push(make(widest, include));
      }
    }
  }
  return candidates;
}

/** The statement's sort keys on this table, when every ORDER BY column of a level is of it. */
function sortKeys(columns: StatementColumns, uses: ColumnUse[]): IndexKey[] {
  const orderUses = uses.filter((use) => use.role === "order");
  const level = orderUses[0]?.level;
  if (level === undefined) {
    return [];
  }
  const levelOrder = columns.uses.filter((use) => use.role === "order" && use.level === level);
  const ours = orderUses.filter((use) => use.level === level);
  if (levelOrder.length !== ours.length || ours.length > MAX_KEYS) {
    return [];
  }
  // Mixed directions need them in the index; one direction is read backwards as well as forwards.
  const mixed = new Set(ours.map((use) => use.descending === true)).size > 1;
  const keys = ours.map((use) => ({ column: use.column, descending: mixed && use.descending === true }));
  return keys.filter((key, at) => keys.findIndex((other) => other.column === key.column) === at);
}

/** Candidates merged across statements (one per table, keys and INCLUDE columns). */
export function mergeCandidates(candidates: Candidate[]): Candidate[] {
  const merged = new Map<string, Candidate>();
  for (const candidate of candidates) {
    const identity = candidateIdentity(candidate);
    const existing = merged.get(identity);
    if (existing) {
      for (const statement of candidate.statements) {
        existing.statements.add(statement);
      }
    } else {
      merged.set(identity, { ...candidate, statements: new Set(candidate.statements) });
    }
  }
  return [...merged.values()];
}

function candidateIdentity(candidate: Candidate): string {
  return JSON.stringify([
    candidate.table.schema,
    candidate.table.name,
    candidate.keys.map((key) => [key.column, key.descending]),
    candidate.include,
  ]);
}

/**
 * The valid, complete B-tree index of the table that already serves the candidate: its leading key
 * columns are the candidate's keys, and it holds the candidate's INCLUDE columns.
 */
export function coveringIndex(candidate: Candidate): CatalogIndex | undefined {
  return candidate.table.indexes.find((index) => {
    if (!index.valid || index.partial || index.method !== "btree") {
      return false;
    }
    const leading = candidate.keys.every((key, at) => index.keys[at] === key.column);
    const held = [...index.keys, ...index.include];
    return leading && candidate.include.every((column) => held.includes(column));
  });
}

/** `CREATE INDEX ON "schema"."table" ("a", "b" DESC) INCLUDE ("c")`, every name quoted. */
export function createIndexStatement(
  candidate: Pick<Candidate, "table" | "keys" | "include"> & { method?: string },
): string {
  const keys = candidate.keys.map((key) => `${quoteIdent(key.column)}${key.descending ? " DESC" : ""}`);
  const include =
    candidate.include.length > 0 ? ` INCLUDE (${candidate.include.map(quoteIdent).join(", ")})` : "";
  const method = candidate.method && candidate.method !== "btree" ? ` USING ${candidate.method}` : "";
  return `CREATE INDEX ON ${quoteIdent(candidate.table.schema)}.${quoteIdent(candidate.table.name)}${method} (${keys.join(", ")})${include}`;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
