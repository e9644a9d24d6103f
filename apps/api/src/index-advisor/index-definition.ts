import { InvalidInput } from "../errors.js";
import type { IndexKey } from "./candidates.js";

/** The access methods HypoPG can make hypothetical indexes of (without further extensions). */
const METHODS = new Set(["btree", "hash", "brin"]);

export interface HypotheticalIndexDefinition {
  table: { schema: string | undefined; name: string };
  method: string;
  keys: IndexKey[];
  include: string[];
}

type Node = Record<string, unknown>;

/**
 * A caller's CREATE INDEX, read from its parse tree: the table, access method, key columns (with
 * their direction) and INCLUDE columns. dbmon writes the statement HypoPG gets anew from these, so
 * nothing else of the caller's text (expressions, predicates, options) reaches the server.
 */
export function hypotheticalIndexFromStatement(wrapper: Node): HypotheticalIndexDefinition {
  const index = wrapper.IndexStmt as Node | undefined;
  if (!index) {
    throw new InvalidInput("A hypothetical index is given as CREATE INDEX ON table (column, ...)");
  }
  const relation = (index.relation ?? {}) as Node;
  const method = String(index.accessMethod ?? "btree").toLowerCase();
  if (!METHODS.has(method)) {
    throw new InvalidInput(`HypoPG cannot make hypothetical ${method} indexes (it can: btree, hash, brin)`);
  }
  if (index.whereClause) {
    throw new InvalidInput("Partial hypothetical indexes (WHERE) are not supported: index columns only");
  }
  const keys = elements(index.indexParams).map((element) => ({
    column: element.name,
    descending: element.ordering === "SORTBY_DESC",
  }));
  if (keys.length === 0) {
    throw new InvalidInput("A hypothetical index needs at least one column");
  }
  return {
    table: {
      schema: typeof relation.schemaname === "string" ? relation.schemaname : undefined,
      name: String(relation.relname ?? ""),
    },
    method,
    keys,
    include: elements(index.indexIncludingParams).map((element) => element.name),
  };
}

function elements(list: unknown): { name: string; ordering: unknown }[] {
  return (Array.isArray(list) ? list : []).map((item) => {
    const element = ((item as Node).IndexElem ?? {}) as Node;
    if (typeof element.name !== "string" || element.expr !== undefined) {
      throw new InvalidInput("Hypothetical indexes take plain columns, not expressions");
    }
    if (element.opclass !== undefined || element.collation !== undefined) {
      throw new InvalidInput(
        "Hypothetical indexes take plain columns, without operator classes or collations",
      );
    }
    return { name: element.name, ordering: element.ordering };
  });
}
