import { MAX_ADVISED_STATEMENT_LENGTH } from "@dbmon/contract";
import type { RequestAccess } from "../auth/access.js";
import { SELF_CONNECTION_QUERY_REFUSED } from "../connections/self-monitoring.js";
import type { ConnectionRow, ConnectionStore } from "../connections/store.js";
import { Conflict, Forbidden, InvalidInput, UpstreamFailed } from "../errors.js";
import type { ParsedStatement } from "../sql/parser.js";
import { quoteIdent, sqlLiteral } from "../sql/quoting.js";
import type { StatementResult } from "../sql/run.js";
import { monitoredServer, type SqlService } from "../sql/service.js";
import {
  type Candidate,
  coveringIndex,
  createIndexStatement,
  MAX_CANDIDATES,
  mergeCandidates,
  statementCandidates,
} from "./candidates.js";
import { type CatalogTable, catalogQuery, readCatalog, tableKey } from "./catalog.js";
import { hypotheticalIndexFromStatement } from "./index-definition.js";
import { bindParameters } from "./parameters.js";
import { type PlanSummary, readPlan } from "./plans.js";
import { type StatementColumns, statementColumns } from "./statement-columns.js";

/** The size budget when the request gives none, in MB. */
export const DEFAULT_BUDGET_MB = 1024;
/** Workload statements read from pg_stat_statements when the request says nothing. */
export const DEFAULT_TOP_STATEMENTS = 10;
/** pg_stat_statements rows read to find that many statements an index could serve. */
const STATEMENTS_SCANNED = 100;
/** Indexes recommended at most (each is one round of the search). */
const MAX_RECOMMENDATIONS = 10;
/** A recommended index must make a statement at least this much cheaper than it already is. */
const MIN_IMPROVEMENT = 0.9;
/** What one costing session sends at most: characters of SQL, and statements. */
const SESSION_TEXT_CHARS = 512 * 1024;
const SESSION_STEPS = 400;
/** The PostgreSQL version from which EXPLAIN plans `$n` statements itself (GENERIC_PLAN). */
const GENERIC_PLAN_VERSION = 160000;

export interface IndexAdviceRequest {
  database_name?: string | undefined;
  statements?: string[] | undefined;
  size_budget_mb?: number | undefined;
  top_statements?: number | undefined;
}

export interface AdvisedStatement {
  id: number;
  query: string;
  calls: number | null;
  cost_before: number | null;
  cost_after: number | null;
  skipped: string | null;
}

export interface IndexRecommendation {
  create_index: string;
  schema_name: string;
  table_name: string;
  columns: string[];
  include: string[];
  estimated_size_bytes: number;
  helps: { statement_id: number; cost_before: number; cost_after: number }[];
}

export interface IndexAdvice {
  database_name: string;
  workload_source: "pg_stat_statements" | "request";
  hypopg_version: string;
  size_budget_bytes: number;
  statements: AdvisedStatement[];
  recommendations: IndexRecommendation[];
  already_covered: { create_index: string; existing_index: string }[];
  candidates_considered: number;
  total_cost_before: number;
  total_cost_after: number;
  estimated_size_bytes: number;
}

export interface HypotheticalExplainRequest {
  database_name?: string | undefined;
  statement: string;
  indexes: string[];
}

export interface HypotheticalExplain {
  database_name: string;
  statement: string;
  cost_before: number;
  cost_after: number;
  plan_before: string;
  plan_after: string;
  indexes: { create_index: string; hypothetical_name: string; estimated_size_bytes: number; used: boolean }[];
}

/** The server, database and caller of one advisor request; every session counts against the limits. */
interface Target {
  row: ConnectionRow;
  databaseName: string | undefined;
  userId: number;
  signal: AbortSignal;
}

/** What the target database has: its name, version and the extensions the advisor uses. */
interface Environment {
  database: string;
  versionNum: number;
  hypoPG: { version: string; schema: string };
  statementsSchema: string | undefined;
}

/** A workload statement as the advisor works on it. */
interface WorkStatement {
  text: string;
  calls: number | null;
  columns: StatementColumns;
  /** EXPLAIN (FORMAT JSON) of it, with parameters bound; undefined when it is skipped. */
  explain?: string;
  skipped?: string;
  before?: number;
  after?: number;
  /** The tables it reads, as tableKey(schema, name) of the catalog. */
  tables: Set<string>;
}

/**
 * The index advisor: candidate indexes from the parse trees of a workload (the top statements of
 * pg_stat_statements, or statements given), costed with HypoPG's hypothetical indexes and EXPLAIN
 * (never ANALYZE) in READ ONLY sessions of the SQL core, and a greedy choice within a size budget.
 * Nothing is created on the server: hypothetical indexes live in the session's memory.
 */
export class IndexAdvisor {
  constructor(private readonly deps: { connections: ConnectionStore; sql: SqlService }) {}

  /** The connection (404), not dbmon's own datastore (403), and the caller. */
  async target(
    access: RequestAccess,
    id: number,
    request: { database_name?: string | undefined },
    signal: AbortSignal,
  ): Promise<Target> {
    const row = await this.deps.connections.require(id);
    if (row.isLocal) {
      throw new Forbidden(SELF_CONNECTION_QUERY_REFUSED);
    }
    const caller = await access.requireCaller();
    return { row, databaseName: request.database_name, userId: caller.userId, signal };
  }

  async advise(target: Target, request: IndexAdviceRequest): Promise<IndexAdvice> {
    const environment = await this.environment(target);
    const budgetBytes = (request.size_budget_mb ?? DEFAULT_BUDGET_MB) * 1024 * 1024;
    const fromRequest = request.statements !== undefined;
    const read = fromRequest
      ? await this.givenStatements(request.statements ?? [])
      : await this.topStatements(target, environment);
    const tables = await this.catalog(
      target,
      read.map((statement) => statement.columns),
    );
    this.prepare(read, tables, environment);
    // From pg_stat_statements: the top statements on tables (not dbmon's or a tool's catalog reads).
    const workload = fromRequest
      ? read
      : read
          .filter((statement) => statement.tables.size > 0)
          .slice(0, request.top_statements ?? DEFAULT_TOP_STATEMENTS);

    const candidates = mergeCandidates(
      workload.flatMap((statement, at) =>
        statement.skipped ? [] : statementCandidates(at, statement.columns, tables),
      ),
    );
    const alreadyCovered: IndexAdvice["already_covered"] = [];
    const open: Candidate[] = [];
    for (const candidate of candidates) {
      const existing = coveringIndex(candidate);
      if (existing) {
        alreadyCovered.push({
          create_index: createIndexStatement(candidate),
          existing_index: `${quoteIdent(candidate.table.schema)}.${quoteIdent(existing.name)}`,
        });
      } else if (open.length < MAX_CANDIDATES) {
        open.push(candidate);
      }
    }
    const chosen = await this.choose(target, environment, workload, open, budgetBytes);
    const live = workload.filter((statement) => statement.before !== undefined);
    for (const statement of live) {
      statement.after ??= statement.before;
    }
    const weighted = (cost: (statement: WorkStatement) => number) =>
      round(live.reduce((sum, statement) => sum + cost(statement) * (statement.calls ?? 1), 0));
    return {
      database_name: environment.database,
      workload_source: fromRequest ? "request" : "pg_stat_statements",
      hypopg_version: environment.hypoPG.version,
      size_budget_bytes: budgetBytes,
      statements: workload.map((statement, at) => ({
        id: at + 1,
        query: statement.text,
        calls: statement.calls,
        cost_before: statement.before ?? null,
        cost_after: statement.after ?? null,
        skipped: statement.skipped ?? null,
      })),
      recommendations: chosen.map(({ candidate, size, helps }) => ({
        create_index: createIndexStatement(candidate),
        schema_name: candidate.table.schema,
        table_name: candidate.table.name,
        columns: candidate.keys.map((key) => key.column),
        include: candidate.include,
        estimated_size_bytes: size,
        helps,
      })),
      already_covered: alreadyCovered,
      candidates_considered: candidates.length,
      total_cost_before: weighted((statement) => statement.before ?? 0),
      total_cost_after: weighted((statement) => statement.after ?? 0),
      estimated_size_bytes: chosen.reduce((sum, choice) => sum + choice.size, 0),
    };
  }

  /** One statement planned as it is and with the hypothetical indexes given. */
  async explainWithIndexes(
    target: Target,
    request: HypotheticalExplainRequest,
  ): Promise<HypotheticalExplain> {
    const [statement] = await this.givenStatements([request.statement]);
    const definitions = await Promise.all(
      request.indexes.map(async (text) => {
        const parsed = await this.deps.sql.parseTrees(text);
        if (parsed.length !== 1) {
          throw new InvalidInput("Give each hypothetical index as one CREATE INDEX statement");
        }
        return hypotheticalIndexFromStatement((parsed[0] as ParsedStatement).tree.node);
      }),
    );
    const environment = await this.environment(target);
    const work = statement as WorkStatement;
    const tables = await this.catalog(
      target,
      [work.columns],
      definitions.map((definition) => definition.table),
    );
    this.prepare([work], tables, environment);
    if (work.skipped || !work.explain) {
      throw new InvalidInput(`The statement cannot be planned: ${work.skipped ?? "no plan"}`);
    }
    const creates = definitions.map((definition) => {
      const table = tables.get(tableKey(definition.table.schema, definition.table.name));
      if (!table) {
        throw new InvalidInput(`Table ${definition.table.name} not found in the database`);
      }
      const missing = [...definition.keys.map((key) => key.column), ...definition.include].find(
        (column) => !table.columns.some((known) => known.name === column),
      );
      if (missing !== undefined) {
        throw new InvalidInput(`Column ${missing} not found in table ${table.schema}.${table.name}`);
      }
      return createIndexStatement({ ...definition, table });
    });
    const textPlan = work.explain.replace(/^explain \(format json/, "explain (format text");
    const results = await this.session(
      target,
      [
        work.explain,
        textPlan,
        ...creates.map((create) => hypotheticalIndex(environment, create)),
        work.explain,
        textPlan,
      ],
      true,
    );
    const failed = results.find((result) => result.error);
    if (failed) {
      throw new InvalidInput(
        `The server could not plan with these indexes: ${failed.error?.replace(/^Query error: /, "")}`,
      );
    }
    const before = readPlan(results[0]?.rows[0]?.[0]);
    const after = readPlan(results.at(-2)?.rows[0]?.[0]);
    if (!before || !after) {
      throw new UpstreamFailed("The server answered EXPLAIN with no plan dbmon can read");
    }
    const planText = (result: StatementResult | undefined) =>
      (result?.rows ?? []).map((row) => row[0] ?? "").join("\n");
    return {
      database_name: environment.database,
      statement: work.text,
      cost_before: before.cost,
      cost_after: after.cost,
      plan_before: planText(results[1]),
      plan_after: planText(results.at(-1)),
      indexes: creates.map((create, at) => {
        const row = results[2 + at]?.rows[0] ?? [];
        const name = row[1] ?? "";
        return {
          create_index: create,
          hypothetical_name: name,
          estimated_size_bytes: Number(row[2] ?? 0),
          used: after.indexes.has(name),
        };
      }),
    };
  }

  /** Runs dbmon's own statements (parsed, each alone) in one READ ONLY session of the SQL core. */
  private async session(target: Target, texts: string[], hypothetical = false): Promise<StatementResult[]> {
    // A line break before each `;`: a statement's closing `--` comment cannot swallow it.
    const statements = await this.deps.sql.parse(texts.join("\n;\n"));
    if (statements.length !== texts.length) {
      throw new InvalidInput("A statement of the workload reads as more than one statement");
    }
    const run = await this.deps.sql.run(
      { userId: target.userId, server: monitoredServer(target.row) },
      {
        connection: await this.deps.connections.clientOptions(target.row, target.databaseName),
        statements,
        mode: "read_only",
        hypotheticalIndexes: hypothetical,
        signal: target.signal,
      },
    );
    return run.results;
  }

  /** The database's name, version and extensions; 409 without HypoPG, saying how to install it. */
  private async environment(target: Target): Promise<Environment> {
    const [result] = await this.session(target, [
      `select current_database(), current_setting('server_version_num'),
        (select e.extversion from pg_extension e where e.extname = 'hypopg'),
        (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'hypopg'),
        (select count(*) from pg_available_extensions where name = 'hypopg'),
        (select n.nspname from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_stat_statements')`,
    ]);
    if (!result || result.error) {
      throw new UpstreamFailed(
        `Could not read the database: ${result?.error?.replace(/^Query error: /, "") ?? "no answer"}`,
      );
    }
    const [database, versionNum, version, schema, available, statementsSchema] = result.rows[0] ?? [];
    const name = database ?? "";
    if (!version || !schema) {
      const major = Math.floor(Number(versionNum) / 10000);
      throw new Conflict(
        available === "0"
          ? `HypoPG is not available on this server: install the HypoPG package of its PostgreSQL version (on Debian or Ubuntu: apt-get install postgresql-${major}-hypopg), then run CREATE EXTENSION hypopg; in database ${quoteIdent(name)} (no restart needed)`
          : `HypoPG is not installed in database ${quoteIdent(name)}: run CREATE EXTENSION hypopg; in that database (no restart needed)`,
      );
    }
    return {
      database: name,
      versionNum: Number(versionNum),
      hypoPG: { version, schema },
      statementsSchema: statementsSchema ?? undefined,
    };
  }

  /** Statements of the request: one each, which EXPLAIN can plan and an index could serve. */
  private async givenStatements(texts: string[]): Promise<WorkStatement[]> {
    const statements: WorkStatement[] = [];
    for (const [at, text] of texts.entries()) {
      const parsed = await this.deps.sql.parseTrees(text);
      if (parsed.length !== 1) {
        throw new InvalidInput(`Statement ${at + 1}: give exactly one SQL statement`);
      }
      const problem = workloadProblem(parsed[0] as ParsedStatement);
      if (problem) {
        throw new InvalidInput(`Statement ${at + 1}: ${problem}`);
      }
      statements.push(workStatement(text, parsed[0] as ParsedStatement, null));
    }
    return statements;
  }

  /** The statements of the database with the most total execution time that an index could serve. */
  private async topStatements(target: Target, environment: Environment): Promise<WorkStatement[]> {
    if (!environment.statementsSchema) {
      throw new Conflict(
        `pg_stat_statements is not installed in database ${quoteIdent(environment.database)}: give the statements in the request, or run CREATE EXTENSION pg_stat_statements; there (the server needs pg_stat_statements in shared_preload_libraries)`,
      );
    }
    const [result] = await this.session(target, [
      `select s.query, s.calls from ${quoteIdent(environment.statementsSchema)}.pg_stat_statements s
        where s.dbid = (select d.oid from pg_database d where d.datname = current_database())
        order by s.total_exec_time desc limit ${STATEMENTS_SCANNED}`,
    ]);
    if (!result || result.error) {
      throw new UpstreamFailed(
        `Could not read pg_stat_statements: ${result?.error?.replace(/^Query error: /, "") ?? "no answer"}`,
      );
    }
    const statements: WorkStatement[] = [];
    for (const [query, calls] of result.rows) {
      if (!query || query.length > MAX_ADVISED_STATEMENT_LENGTH) {
        continue;
      }
      const parsed = await this.deps.sql.parseTrees(query).catch(() => []);
      if (parsed.length === 1 && !workloadProblem(parsed[0] as ParsedStatement)) {
        statements.push(workStatement(query, parsed[0] as ParsedStatement, Number(calls)));
      }
    }
    return statements;
  }

  /** The catalog of the tables the statements (and hypothetical indexes) name. */
  private async catalog(
    target: Target,
    statements: StatementColumns[],
    extra: { schema: string | undefined; name: string }[] = [],
  ): Promise<Map<string, CatalogTable>> {
    const keys = [
      ...new Set([
        ...statements.flatMap((columns) =>
          columns.levels.flatMap((level) => level.tables.map((table) => tableKey(table.schema, table.name))),
        ),
        ...extra.map((table) => tableKey(table.schema, table.name)),
      ]),
    ];
    if (keys.length === 0) {
      return new Map();
    }
    const [result] = await this.session(target, [catalogQuery(keys)]);
    if (!result || result.error) {
      throw new UpstreamFailed(
        `Could not read the catalog: ${result?.error?.replace(/^Query error: /, "") ?? "no answer"}`,
      );
    }
    return readCatalog(keys, result.rows);
  }

  /** Each statement's EXPLAIN text (parameters bound on PostgreSQL 15), or why it is skipped. */
  private prepare(
    workload: WorkStatement[],
    tables: Map<string, CatalogTable>,
    environment: Environment,
  ): void {
    for (const statement of workload) {
      // By schema and name: a statement may name a table with or without its schema.
      statement.tables = new Set(
        statement.columns.levels.flatMap((level) =>
          level.tables.flatMap((reference) => {
            const table = tables.get(tableKey(reference.schema, reference.name));
            return table ? [tableKey(table.schema, table.name)] : [];
          }),
        ),
      );
      if (statement.tables.size === 0) {
        statement.skipped = "it reads no table an index can be made on";
        continue;
      }
      const hasParameters = statement.columns.parameterLocations.length > 0;
      if (hasParameters && environment.versionNum >= GENERIC_PLAN_VERSION) {
        statement.explain = `explain (format json, generic_plan) ${statement.text}`;
        continue;
      }
      const bound = bindParameters(statement.text, statement.columns, tables);
      if ("problem" in bound) {
        statement.skipped = bound.problem;
      } else {
        statement.explain = `explain (format json) ${bound.text}`;
      }
    }
  }

  /**
   * The greedy search: each round plans the statements on a candidate's table with the indexes
   * chosen so far plus that candidate (hypopg_reset, hypopg_create_index of each, EXPLAIN), in one
   * session, and keeps the candidate that saves the most (cost × calls), if it makes some statement
   * at least 10 % cheaper than it is with the chosen indexes and fits in what is left of the budget.
   * Round 0 also plans every statement as it is. A statement the server cannot plan is skipped
   * with its error, a candidate HypoPG refuses is dropped, and the round runs again.
   */
  private async choose(
    target: Target,
    environment: Environment,
    workload: WorkStatement[],
    candidates: Candidate[],
    budgetBytes: number,
  ): Promise<Choice[]> {
    const chosen: Choice[] = [];
    let open = [...candidates];
    let left = budgetBytes;
    for (let round = 0; round <= MAX_RECOMMENDATIONS; round++) {
      const outcome = await this.round(target, environment, workload, chosen, open, round === 0);
      if ("dropped" in outcome) {
        open = open.filter((candidate) => candidate !== outcome.dropped);
        round--;
        continue;
      }
      const current = (at: number) => workload[at]?.after ?? workload[at]?.before ?? 0;
      const ranked = outcome.costed
        .filter((entry) => entry.size <= left)
        .filter((entry) => [...entry.after].some(([at, cost]) => cost < current(at) * MIN_IMPROVEMENT))
        .map((entry) => ({
          entry,
          saving: [...entry.after].reduce(
            (sum, [at, cost]) => sum + Math.max(0, current(at) - cost) * (workload[at]?.calls ?? 1),
            0,
          ),
        }))
        .sort((a, b) => b.saving - a.saving || a.entry.size - b.entry.size);
      const best = ranked[0]?.entry;
      if (!best || chosen.length >= MAX_RECOMMENDATIONS) {
        return chosen;
      }
      const helps = [...best.after]
        .filter(([at, cost]) => cost < current(at) * MIN_IMPROVEMENT)
        .map(([at, cost]) => ({
          statement_id: at + 1,
          cost_before: workload[at]?.before ?? 0,
          cost_after: cost,
        }));
      for (const [at, cost] of best.after) {
        const statement = workload[at] as WorkStatement;
        statement.after = Math.min(current(at), cost);
      }
      chosen.push({ candidate: best.candidate, size: best.size, helps });
      left -= best.size;
      open = open.filter((candidate) => candidate !== best.candidate);
    }
    return chosen;
  }

  /** One round of the search: the costs with the chosen indexes and each open candidate. */
  private async round(
    target: Target,
    environment: Environment,
    workload: WorkStatement[],
    chosen: Choice[],
    open: Candidate[],
    baseline: boolean,
  ): Promise<{ costed: Costed[] } | { dropped: Candidate | undefined }> {
    const live = workload
      .map((statement, at) => ({ statement, at }))
      .filter(({ statement }) => statement.explain);
    // Groups of steps, each independent of the others (a candidate's starts with hypopg_reset).
    const groups: Step[][] = baseline
      ? [live.map(({ statement, at }) => ({ text: statement.explain as string, baseline: at }))]
      : [];
    for (const candidate of open) {
      const onTable = live.filter(({ statement }) =>
        statement.tables.has(tableKey(candidate.table.schema, candidate.table.name)),
      );
      if (onTable.length === 0) {
        continue;
      }
      groups.push([
        { text: hypopgReset(environment) },
        ...chosen.map((choice) => ({
          text: hypotheticalIndex(environment, createIndexStatement(choice.candidate)),
        })),
        { text: hypotheticalIndex(environment, createIndexStatement(candidate)), created: candidate },
        ...onTable.map(({ statement, at }) => ({
          text: statement.explain as string,
          candidate,
          statement: at,
        })),
      ]);
    }
    const steps: Step[] = [];
    const results: StatementResult[] = [];
    for (const batch of sessionBatches(groups)) {
      const answered = await this.session(
        target,
        batch.map((step) => step.text),
        true,
      );
      steps.push(...batch);
      results.push(...answered);
      if (answered.some((result) => result.error)) {
        break;
      }
    }
    const failedAt = results.findIndex((result) => result.error);
    if (failedAt < 0) {
      return { costed: readCosts(workload, steps, results) };
    }
    const failed = steps[failedAt] as Step;
    const error = (results[failedAt]?.error ?? "").replace(/^Query error: /, "");
    if (failed.baseline !== undefined) {
      const statement = workload[failed.baseline] as WorkStatement;
      statement.skipped = `the server could not plan it: ${error}`;
      statement.explain = undefined;
      return { dropped: undefined };
    }
    const dropped = failed.created ?? failed.candidate;
    if (!dropped) {
      throw new UpstreamFailed(`HypoPG failed: ${error}`);
    }
    return { dropped };
  }
}

/**
 * Groups of steps packed into sessions: each session's text stays well within the parser's cap and
 * its statements within what the core's deadline allows (a group larger than that runs alone).
 */
function sessionBatches(groups: Step[][]): Step[][] {
  const batches: Step[][] = [];
  let batch: Step[] = [];
  let chars = 0;
  for (const group of groups) {
    const size = group.reduce((sum, step) => sum + step.text.length + 3, 0);
    if (
      batch.length > 0 &&
      (chars + size > SESSION_TEXT_CHARS || batch.length + group.length > SESSION_STEPS)
    ) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
    batch.push(...group);
    chars += size;
  }
  if (batch.length > 0) {
    batches.push(batch);
  }
  return batches;
}

/** One statement of a costing session and what its result tells. */
interface Step {
  text: string;
  /** The plan of this workload statement without hypothetical indexes. */
  baseline?: number;
  /** hypopg_create_index of this candidate. */
  created?: Candidate;
  /** The plan of workload statement `statement` with `candidate`. */
  candidate?: Candidate;
  statement?: number;
}

/** A candidate costed in a round: its estimated size and the statements' costs with it. */
interface Costed {
  candidate: Candidate;
  name: string;
  size: number;
  after: Map<number, number>;
}

/** A recommended index, with the statements it made cheaper when it was chosen. */
interface Choice {
  candidate: Candidate;
  size: number;
  helps: IndexRecommendation["helps"];
}

function readCosts(workload: WorkStatement[], steps: Step[], results: StatementResult[]): Costed[] {
  const costed = new Map<Candidate, Costed>();
  for (const [at, step] of steps.entries()) {
    const row = results[at]?.rows[0] ?? [];
    if (step.baseline !== undefined) {
      const plan = readPlan(row[0]);
      const statement = workload[step.baseline] as WorkStatement;
      if (plan) {
        statement.before = plan.cost;
      } else {
        statement.skipped = "the server's plan could not be read";
        statement.explain = undefined;
      }
    } else if (step.created) {
      costed.set(step.created, {
        candidate: step.created,
        name: row[1] ?? "",
        size: Number(row[2] ?? 0),
        after: new Map(),
      });
    } else if (step.candidate && step.statement !== undefined) {
      const entry = costed.get(step.candidate);
      const plan: PlanSummary | undefined = readPlan(row[0]);
      // Only a plan that uses the hypothetical index counts for it.
      if (entry && plan?.indexes.has(entry.name) && workload[step.statement]?.before !== undefined) {
        entry.after.set(step.statement, plan.cost);
      }
    }
  }
  return [...costed.values()];
}

function hypopgReset(environment: Environment): string {
  return `select ${quoteIdent(environment.hypoPG.schema)}.hypopg_reset()`;
}

/** Creates a hypothetical index and answers its oid, HypoPG's name for it and its estimated size. */
function hypotheticalIndex(environment: Environment, createIndex: string): string {
  const schema = quoteIdent(environment.hypoPG.schema);
  return `select h.indexrelid, h.indexname, ${schema}.hypopg_relation_size(h.indexrelid) from ${schema}.hypopg_create_index(${sqlLiteral(createIndex)}) h`;
}

/** Why a statement is not one the advisor takes, or undefined. */
function workloadProblem(parsed: ParsedStatement): string | undefined {
  const { statement } = parsed;
  if (statement.refused) {
    return `refused: ${statement.refused}`;
  }
  if (!["SELECT", "UPDATE", "DELETE"].includes(statement.command)) {
    return `only SELECT, UPDATE and DELETE statements can be served by an index (this is ${statement.command})`;
  }
  return statement.notPlannable ? `it cannot be planned: ${statement.notPlannable}` : undefined;
}

/** `source` is the text parsed, which held this one statement. */
function workStatement(source: string, parsed: ParsedStatement, calls: number | null): WorkStatement {
  // The statement's text is trimmed: its tree's locations count from the untrimmed start.
  const fromStart = Buffer.from(source, "utf8").subarray(parsed.tree.offset).toString("utf8");
  const trimmed = Buffer.byteLength(fromStart) - Buffer.byteLength(fromStart.trimStart());
  return {
    text: parsed.statement.text,
    calls,
    columns: statementColumns(parsed.tree.node, parsed.tree.offset + trimmed),
    tables: new Set(),
  };
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
