import { HypotheticalExplainRequestSchema, IndexAdviceRequestSchema } from "@dbmon/contract";
import type { HypotheticalExplain, IndexAdvice } from "../../index-advisor/service.js";
import { boundConnection } from "../connection.js";
import { defineTool, type ToolContext, text } from "../tool.js";
import { connectionArgs } from "./sql.js";

/** The advisor's target for a tool call: the bound connection, checked as the REST operations check it. */
async function advisorTarget(
  context: ToolContext,
  args: { connection_id?: number | undefined; database_name?: string | undefined },
) {
  const bound = await boundConnection(context, args);
  return context.services.indexAdvisor.target(
    context.access,
    bound.row.id,
    { database_name: bound.databaseName },
    context.signal,
  );
}

const adviceFields = IndexAdviceRequestSchema.shape;
const explainFields = HypotheticalExplainRequestSchema.shape;

const cost = (value: number | null) => (value === null ? "?" : String(value));

/** The advice as text for a model: each recommendation with what it helps, then the statements. */
export function presentIndexAdvice(advice: IndexAdvice): string {
  const lines = [
    `Index advice for database ${advice.database_name} (workload: ${advice.workload_source}; HypoPG ${advice.hypopg_version}; budget ${advice.size_budget_bytes} bytes)`,
    `Workload cost (weighted by calls): ${advice.total_cost_before} → ${advice.total_cost_after}; recommended indexes take about ${advice.estimated_size_bytes} bytes`,
    "",
    advice.recommendations.length === 0 ? "No index recommended." : "Recommended indexes:",
  ];
  for (const recommendation of advice.recommendations) {
    lines.push(`${recommendation.create_index};  -- about ${recommendation.estimated_size_bytes} bytes`);
    for (const help of recommendation.helps) {
      lines.push(`  helps statement ${help.statement_id}: cost ${help.cost_before} → ${help.cost_after}`);
    }
  }
  if (advice.already_covered.length > 0) {
    lines.push("", "Left out (an existing index has the same leading columns):");
    for (const covered of advice.already_covered) {
      lines.push(`  ${covered.create_index}  (served by ${covered.existing_index})`);
    }
  }
  lines.push("", "Statements:");
  for (const statement of advice.statements) {
    const calls = statement.calls === null ? "" : `, ${statement.calls} calls`;
    const outcome = statement.skipped
      ? `skipped: ${statement.skipped}`
      : `cost ${cost(statement.cost_before)} → ${cost(statement.cost_after)}`;
    lines.push(`  ${statement.id}. ${statement.query}  (${outcome}${calls})`);
  }
  return lines.join("\n");
}

export function presentHypotheticalExplain(answer: HypotheticalExplain): string {
  return [
    `Cost: ${answer.cost_before} → ${answer.cost_after}`,
    ...answer.indexes.map(
      (index) =>
        `${index.create_index}  -- ${index.hypothetical_name}, about ${index.estimated_size_bytes} bytes, ${index.used ? "used" : "not used"} by the plan`,
    ),
    "",
    "Plan without the indexes:",
    answer.plan_before,
    "",
    "Plan with the hypothetical indexes:",
    answer.plan_after,
  ].join("\n");
}

export const recommendIndexes = defineTool({
  name: "recommend_indexes",
  privilege: "recommend_indexes",
  description:
    "Recommend indexes for a monitored database: candidates from the statements' columns (filters, joins, ORDER BY), costed with HypoPG's hypothetical indexes and EXPLAIN (never ANALYZE) in a READ ONLY session, chosen greedily within a size budget. Nothing is created on the server. The workload is `statements` when given, else the top statements of pg_stat_statements by total time. Answers CREATE INDEX statements with the statements each helps and their cost before and after. Needs the hypopg extension in the database (the error says how to install it).",
  compactDescription: "Recommend indexes (HypoPG); creates nothing.",
  input: {
    ...connectionArgs,
    // The REST operation's own bounds, so that the tool and the operation accept the same requests.
    statements: adviceFields.statements.describe(
      "SELECT, UPDATE or DELETE statements to advise on; default: the top of pg_stat_statements",
    ),
    size_budget_mb: adviceFields.size_budget_mb.describe("Size budget in MB (default 1024)"),
    top_statements: adviceFields.top_statements.describe(
      "Statements taken from pg_stat_statements when none are given (default 10)",
    ),
  },
  async run(context, args) {
    const target = await advisorTarget(context, args);
    const advice = await context.services.indexAdvisor.advise(target, {
      statements: args.statements,
      size_budget_mb: args.size_budget_mb,
      top_statements: args.top_statements,
    });
    return text(presentIndexAdvice(advice));
  },
});

export const explainWithHypotheticalIndexes = defineTool({
  name: "explain_with_hypothetical_indexes",
  privilege: "explain_with_hypothetical_indexes",
  description:
    "Plan one query on a monitored database without and with hypothetical indexes (HypoPG): EXPLAIN (never ANALYZE) in a READ ONLY session; nothing is created on the server. Give the indexes as CREATE INDEX statements on plain columns (INCLUDE allowed; btree, hash or brin). Answers both plans, the costs, and whether the plan uses each index. Use it to check an index before proposing it.",
  compactDescription: "EXPLAIN a query with hypothetical indexes.",
  input: {
    query: explainFields.statement.describe("The statement to plan"),
    indexes: explainFields.indexes.describe("CREATE INDEX statements"),
    ...connectionArgs,
  },
  async run(context, args) {
    const target = await advisorTarget(context, args);
    const answer = await context.services.indexAdvisor.explainWithIndexes(target, {
      statement: args.query,
      indexes: args.indexes,
    });
    return text(presentHypotheticalExplain(answer));
  },
});

export const indexAdvisorTools = [recommendIndexes, explainWithHypotheticalIndexes];
