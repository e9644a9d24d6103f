/**
 * What an index could serve in one statement, read from PostgreSQL's parse tree (libpg-query's
 * JSON): the tables each query level reads, and the columns it compares with a value (equality,
 * IN, ranges), joins on, sorts by and outputs, with the `$n` parameters and the column each is
 * compared with. Columns are named as written; the catalog resolves them (see catalog.ts).
 */

type Node = Record<string, unknown>;

/** A table as a FROM clause names it. */
export interface TableReference {
  schema: string | undefined;
  name: string;
  /** The name the query level uses for it: its alias, else its name. */
  alias: string;
}

export type ColumnRole = "equality" | "range" | "join" | "order" | "output";

/** A column as written: `qualifier.column` or just `column`, and the query level it belongs to. */
export interface ColumnUse {
  level: number;
  qualifier: string | undefined;
  column: string;
  role: ColumnRole;
  /** For "order": sorted descending. */
  descending?: boolean;
}

/** A `$n` parameter: where it is in the text (bytes) and what it stands for. */
export interface ParameterUse {
  number: number;
  /** Byte offset of `$n` in the statement's text. */
  location: number;
  /** What the parameter is compared with, if a column (the value's type and statistics come from it). */
  column?: { level: number; qualifier: string | undefined; column: string };
  /** How it is compared: `=`, `<`, `>=`, …, `in`, `between-low`, `between-high`. */
  comparison?: string;
  /** LIMIT and OFFSET take a count. */
  clause?: "limit" | "offset";
}

export interface QueryLevel {
  tables: TableReference[];
  /** The level whose columns a correlated subquery may name, or undefined at the top. */
  parent: number | undefined;
  /** `*` or `t.*` in the output list: a covering index is out of the question. */
  selectsAll: boolean;
}

export interface StatementColumns {
  levels: QueryLevel[];
  uses: ColumnUse[];
  /** Parameters whose meaning is known (compared with a column, LIMIT, OFFSET). */
  parameters: ParameterUse[];
  /** Every `$n` of the statement, wherever it is. */
  parameterLocations: { number: number; location: number }[];
}

const RANGE_OPERATORS = new Set(["<", ">", "<=", ">="]);
/** Walks stop here: a statement nested deeper than this is read only down to it. */
const MAX_DEPTH = 200;

/**
 * Reads a statement's tree. `offset` is where the statement starts in the text it was parsed from
 * (node locations count from there), so parameter locations come out relative to the statement.
 */
export function statementColumns(root: Node, offset = 0): StatementColumns {
  const reader = new TreeReader(offset);
  reader.statement(root, undefined, 0);
  return {
    levels: reader.levels,
    uses: reader.uses,
    parameters: reader.parameters,
    parameterLocations: allParameters(root, offset),
  };
}

/** Every ParamRef of a tree (iteratively: a deep tree must not exhaust the stack). */
function allParameters(root: Node, offset: number): { number: number; location: number }[] {
  const found: { number: number; location: number }[] = [];
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (value === null || typeof value !== "object") {
      continue;
    }
    if (Array.isArray(value)) {
      pending.push(...value);
      continue;
    }
    const param = (value as Node).ParamRef as Node | undefined;
    if (param && typeof param.number === "number" && typeof param.location === "number") {
      found.push({ number: param.number, location: param.location - offset });
    }
    pending.push(...Object.values(value as Node));
  }
  return found;
}

class TreeReader {
  readonly levels: QueryLevel[] = [];
  readonly uses: ColumnUse[] = [];
  readonly parameters: ParameterUse[] = [];
  private readonly cteNames = new Set<string>();

  constructor(private readonly offset: number) {}

  /** A statement node ({SelectStmt: …}, {UpdateStmt: …}, …) as a new query level. */
  statement(wrapper: Node, parent: number | undefined, depth: number): void {
    if (depth > MAX_DEPTH) {
      return;
    }
    const [kind, node] = unwrap(wrapper);
    if (kind === "SelectStmt") {
      this.select(node, parent, depth);
    } else if (kind === "UpdateStmt" || kind === "DeleteStmt") {
      const level = this.newLevel(parent);
      this.withClause(node.withClause, level, depth);
      this.rangeVar(asNode(node.relation), level);
      for (const item of list(node.fromClause ?? node.usingClause)) {
        this.fromItem(item, level, depth);
      }
      this.condition(node.whereClause, level, depth);
    }
  }

  private newLevel(parent: number | undefined): number {
    this.levels.push({ tables: [], parent, selectsAll: false });
    return this.levels.length - 1;
  }

  private withClause(clause: unknown, level: number, depth: number): void {
    for (const cte of list(asNode(clause).ctes)) {
      const expression = asNode(asNode(cte).CommonTableExpr);
      this.cteNames.add(String(expression.ctename ?? ""));
      this.statement(asNode(expression.ctequery), level, depth + 1);
    }
  }

  private select(node: Node, parent: number | undefined, depth: number): void {
    if (node.op && node.op !== "SETOP_NONE") {
      // UNION, INTERSECT, EXCEPT: each side is a query of its own.
      this.statement({ SelectStmt: asNode(node.larg) }, parent, depth + 1);
      this.statement({ SelectStmt: asNode(node.rarg) }, parent, depth + 1);
      return;
    }
    const level = this.newLevel(parent);
    this.withClause(node.withClause, level, depth);
    for (const item of list(node.fromClause)) {
      this.fromItem(item, level, depth);
    }
    this.condition(node.whereClause, level, depth);
    for (const target of list(node.targetList)) {
      this.output(asNode(asNode(target).ResTarget).val, level, depth);
    }
    for (const item of list(node.sortClause)) {
      const sortBy = asNode(asNode(item).SortBy);
      const column = columnRef(sortBy.node);
      if (column) {
        this.uses.push({ level, ...column, role: "order", descending: sortBy.sortby_dir === "SORTBY_DESC" });
      }
    }
    this.parameter(node.limitCount, { clause: "limit" });
    this.parameter(node.limitOffset, { clause: "offset" });
  }

  private fromItem(item: unknown, level: number, depth: number): void {
    const node = asNode(item);
    if (node.RangeVar) {
      this.rangeVar(asNode(node.RangeVar), level);
    } else if (node.JoinExpr) {
      const join = asNode(node.JoinExpr);
      this.fromItem(join.larg, level, depth);
      this.fromItem(join.rarg, level, depth);
      this.condition(join.quals, level, depth);
    } else if (node.RangeSubselect) {
      this.statement(asNode(asNode(node.RangeSubselect).subquery), level, depth + 1);
    }
  }

  private rangeVar(range: Node, level: number): void {
    const name = typeof range.relname === "string" ? range.relname : undefined;
    if (!name) {
      return;
    }
    const schema = typeof range.schemaname === "string" ? range.schemaname : undefined;
    if (!schema && this.cteNames.has(name)) {
      return;
    }
    const alias = String(asNode(range.alias).aliasname ?? name);
    this.levels[level]?.tables.push({ schema, name, alias });
  }

  /** A WHERE or ON condition: comparisons of columns with values or with each other. */
  private condition(expression: unknown, level: number, depth: number): void {
    if (depth > MAX_DEPTH) {
      return;
    }
    const node = asNode(expression);
    if (node.BoolExpr) {
      for (const argument of list(asNode(node.BoolExpr).args)) {
        this.condition(argument, level, depth + 1);
      }
      return;
    }
    if (node.SubLink) {
      this.subLink(asNode(node.SubLink), level, depth);
      return;
    }
    if (!node.A_Expr) {
      return;
    }
    const comparison = asNode(node.A_Expr);
    const left = columnRef(comparison.lexpr);
    const kind = comparison.kind;
    if (kind === "AEXPR_OP") {
      const operator = names(comparison.name).at(-1) ?? "";
      const right = columnRef(comparison.rexpr);
      if (operator === "=" && left && right) {
        this.uses.push({ level, ...left, role: "join" }, { level, ...right, role: "join" });
        return;
      }
      const [column, value, flipped] = left
        ? [left, comparison.rexpr, false]
        : [right, comparison.lexpr, true];
      if (!column || !isValue(value)) {
        return;
      }
      if (operator === "=") {
        this.uses.push({ level, ...column, role: "equality" });
        this.parameter(value, { column: { level, ...column }, comparison: "=" });
      } else if (RANGE_OPERATORS.has(operator)) {
        const written = flipped ? flip(operator) : operator;
        this.uses.push({ level, ...column, role: "range" });
        this.parameter(value, { column: { level, ...column }, comparison: written });
      }
    } else if (kind === "AEXPR_IN" && left) {
      this.uses.push({ level, ...left, role: "equality" });
      for (const item of list(comparison.rexpr)) {
        this.parameter(item, { column: { level, ...left }, comparison: "=" });
      }
    } else if ((kind === "AEXPR_BETWEEN" || kind === "AEXPR_BETWEEN_SYM") && left) {
      this.uses.push({ level, ...left, role: "range" });
      const [low, high] = list(comparison.rexpr);
      this.parameter(low, { column: { level, ...left }, comparison: "between-low" });
      this.parameter(high, { column: { level, ...left }, comparison: "between-high" });
    }
  }

  /** EXISTS (…), x IN (SELECT …): a query level of its own under this one. */
  private subLink(link: Node, level: number, depth: number): void {
    const tested = columnRef(link.testexpr);
    if (tested && link.subLinkType === "ANY_SUBLINK") {
      this.uses.push({ level, ...tested, role: "join" });
    }
    this.statement(asNode(link.subselect), level, depth + 1);
  }

  private output(value: unknown, level: number, depth: number): void {
    const node = asNode(value);
    const ref = asNode(node.ColumnRef);
    if (list(ref.fields).some((field) => asNode(field).A_Star !== undefined)) {
      const current = this.levels[level];
      if (current) {
        current.selectsAll = true;
      }
      return;
    }
    const column = columnRef(value);
    if (column) {
      this.uses.push({ level, ...column, role: "output" });
    } else if (node.SubLink) {
      this.statement(asNode(asNode(node.SubLink).subselect), level, depth + 1);
    }
  }

  private parameter(value: unknown, use: Omit<ParameterUse, "number" | "location">): void {
    const param = asNode(asNode(unwrapCast(value)).ParamRef);
    if (typeof param.number === "number" && typeof param.location === "number") {
      this.parameters.push({ number: param.number, location: param.location - this.offset, ...use });
    }
  }
}

function unwrap(wrapper: Node): [string, Node] {
  const [entry] = Object.entries(wrapper);
  return entry ? [entry[0], asNode(entry[1])] : ["", {}];
}

function asNode(value: unknown): Node {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Node) : {};
}

function list(value: unknown): unknown[] {
  if (Array.isArray(value)) {
    return value;
  }
  // An IN list comes as {List: {items: […]}}.
  const items = asNode(asNode(value).List).items;
  return Array.isArray(items) ? items : [];
}

function names(value: unknown): string[] {
  return list(value).map((item) => String(asNode(asNode(item).String).sval ?? ""));
}

/** `x::type` is the value x for what an index can do with it. */
function unwrapCast(value: unknown): unknown {
  let node = asNode(value);
  for (let depth = 0; node.TypeCast && depth < MAX_DEPTH; depth++) {
    node = asNode(asNode(node.TypeCast).arg);
  }
  return node;
}

/** A plain column reference (`c` or `t.c`; `s.t.c` keeps the table), else undefined. */
function columnRef(value: unknown): { qualifier: string | undefined; column: string } | undefined {
  const fields = names(asNode(asNode(unwrapCast(value)).ColumnRef).fields);
  if (fields.length === 0 || fields.some((field) => field === "")) {
    return undefined;
  }
  const column = fields.at(-1) as string;
  return { qualifier: fields.length > 1 ? fields.at(-2) : undefined, column };
}

/** A constant, a parameter or an expression of them: what a comparison with an indexed column can use. */
function isValue(value: unknown): boolean {
  const node = asNode(unwrapCast(value));
  return node.A_Const !== undefined || node.ParamRef !== undefined || node.FuncCall !== undefined;
}

function flip(operator: string): string {
  return ({ "<": ">", ">": "<", "<=": ">=", ">=": "<=" } as Record<string, string>)[operator] ?? operator;
}
