import { sqlLiteral } from "../sql/quoting.js";
import { resolveUse } from "./candidates.js";
import type { CatalogTable } from "./catalog.js";
import type { ParameterUse, StatementColumns } from "./statement-columns.js";

/** The row count a `LIMIT $n` stands for, and the rows an `OFFSET $n` skips. */
const LIMIT_VALUE = "100";
const OFFSET_VALUE = "0";

/**
 * A normalized statement (pg_stat_statements writes `$1` for constants) with representative values
 * in place of its parameters, so that PostgreSQL 15, which has no EXPLAIN (GENERIC_PLAN), can plan
 * it: the value a parameter is compared with comes from pg_stats of that column, typed as the
 * column is (`=` and IN: the most common value, else the histogram's median; `>`: the 90 %
 * bound, `<`: the 10 % bound, so a range keeps a tenth of the rows; BETWEEN: from the 10 % to the 50 % bound),
 * LIMIT is 100, OFFSET 0. Undefined values are named in `problem`.
 */
export function bindParameters(
  text: string,
  columns: StatementColumns,
  tables: ReadonlyMap<string, CatalogTable>,
): { text: string } | { problem: string } {
  if (columns.parameterLocations.length === 0) {
    return { text };
  }
  const values = new Map<number, string>();
  for (const parameter of columns.parameters) {
    if (values.has(parameter.number)) {
      continue;
    }
    const value = representativeValue(parameter, columns, tables);
    if (value !== undefined) {
      values.set(parameter.number, value);
    }
  }
  const bytes = Buffer.from(text, "utf8");
  const missing = [...new Set(columns.parameterLocations.map((parameter) => parameter.number))]
    .filter((number) => !values.has(number))
    .sort((a, b) => a - b);
  if (missing.length > 0) {
    return {
      problem: `no representative value for ${missing.map((number) => `$${number}`).join(", ")}: a parameter needs a column it is compared with that has statistics (ANALYZE the table), or give the statement with values`,
    };
  }
  // Replaced from the end, at the parser's byte offsets: a `$1` inside a string literal or a
  // comment is not a parameter and is left alone.
  const chunks: Buffer[] = [];
  let end = bytes.length;
  const located = [...columns.parameterLocations].sort((a, b) => b.location - a.location);
  for (const parameter of located) {
    const written = `$${parameter.number}`;
    if (
      bytes.subarray(parameter.location, parameter.location + written.length).toString("latin1") !== written
    ) {
      return { problem: `parameter $${parameter.number} is not where the parser put it` };
    }
    chunks.unshift(bytes.subarray(parameter.location + written.length, end));
    chunks.unshift(Buffer.from(values.get(parameter.number) as string, "utf8"));
    end = parameter.location;
  }
  chunks.unshift(bytes.subarray(0, end));
  return { text: Buffer.concat(chunks).toString("utf8") };
}

function representativeValue(
  parameter: ParameterUse,
  columns: StatementColumns,
  tables: ReadonlyMap<string, CatalogTable>,
): string | undefined {
  if (parameter.clause === "limit") {
    return LIMIT_VALUE;
  }
  if (parameter.clause === "offset") {
    return OFFSET_VALUE;
  }
  if (!parameter.column) {
    return undefined;
  }
  const resolved = resolveUse(columns, tables, parameter.column);
  const column = resolved?.table.columns.find((candidate) => candidate.name === parameter.column?.column);
  if (!column) {
    return undefined;
  }
  const [low, middle, high] = column.quantiles;
  const value = (() => {
    switch (parameter.comparison) {
      case ">":
      case ">=":
        return high ?? middle ?? column.common;
      case "<":
      case "<=":
        return low ?? middle ?? column.common;
      case "between-low":
        return low ?? middle ?? column.common;
      case "between-high":
        return middle ?? high ?? column.common;
      default:
        return column.common ?? middle;
    }
  })();
  return value === null || value === undefined ? undefined : `${sqlLiteral(value)}::${column.type}`;
}
