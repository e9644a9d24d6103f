import { z } from "zod";
import { quoteIdent, sqlLiteral } from "../../sql/quoting.js";
import type { StatementResult } from "../../sql/run.js";
import { boundConnection } from "../connection.js";
import { defineTool, failure, text } from "../tool.js";
import { connectionArgs, runRead } from "./sql.js";

export const DISTANCE_OPERATORS = { cosine: "<=>", l2: "<->", inner_product: "<#>" } as const;
export type DistanceMetric = keyof typeof DISTANCE_OPERATORS;

/** Rows fetched per result wanted: the pool maximal marginal relevance picks diverse results from. */
const CANDIDATES_PER_RESULT = 4;
/** Below this many tokens left, further results are announced rather than cut to nothing. */
const MIN_PART_TOKENS = 20;
/** The most candidate rows fetched, whatever top_n asks. */
const MAX_CANDIDATES = 200;

export interface VectorTable {
  /** The table as PostgreSQL names it (schema-qualified, quoted where needed). */
  relation: string;
  vectorColumn: string;
  /** Declared dimensions of the vector column, or null when the column has none. */
  dimensions: number | null;
  /** Columns shown with each result: text-like ones. */
  textColumns: string[];
  /** A single-column primary key, else null (rows are then told apart by ctid). */
  keyColumn: string | null;
}

/** Reads what similarity_search needs about a table: its vector column, text columns and key. */
export function describeTableSql(tableName: string): string {
  return `select c.oid::regclass::text as relation,
       (select json_agg(json_build_object('name', a.attname, 'type', t.typname, 'typmod', a.atttypmod) order by a.attnum)
          from pg_attribute a join pg_type t on t.oid = a.atttypid
         where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
       (select a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
         where i.indrelid = c.oid and i.indisprimary and i.indnkeyatts = 1) as key_column
  from pg_class c
 where c.oid = to_regclass(${sqlLiteral(tableName)}) and c.relkind in ('r', 'p', 'v', 'm', 'f')`;
}

const TEXT_TYPES = new Set(["text", "varchar", "bpchar", "name", "citext", "json", "jsonb"]);

/** The table's description from describeTableSql's row, or a refusal in the caller's terms. */
export function vectorTableOf(tableName: string, result: StatementResult): VectorTable | string {
  const row = result.rows[0];
  if (!row) {
    return `Table ${tableName} not found (give it as schema.table if it is not on the search path)`;
  }
  const [relation, columnsJson, keyColumn] = row as [string, string, string | null];
  const columns = JSON.parse(columnsJson ?? "[]") as { name: string; type: string; typmod: number }[];
  const vector = columns.find((column) => column.type === "vector");
  if (!vector) {
    return `Table ${relation} has no pgvector column (get_schema_info with vector_tables_only lists the tables that have one)`;
  }
  return {
    relation,
    vectorColumn: vector.name,
    dimensions: vector.typmod > 0 ? vector.typmod : null,
    textColumns: columns.filter((column) => TEXT_TYPES.has(column.type)).map((column) => column.name),
    keyColumn,
  };
}

/**
 * The nearest rows to a query vector: key, text columns, the stored vector (for diversity) and the
 * distance under the metric's pgvector operator (for inner_product, pgvector's negative inner product).
 */
export function nearestRowsSql(
  table: VectorTable,
  vector: readonly number[],
  metric: DistanceMetric,
  limit: number,
): string {
  const literal = `${sqlLiteral(`[${vector.join(",")}]`)}::vector`;
  const distance = `${quoteIdent(table.vectorColumn)} ${DISTANCE_OPERATORS[metric]} ${literal}`;
  const key = table.keyColumn ? `${quoteIdent(table.keyColumn)}::text` : "ctid::text";
  const texts = table.textColumns.map((column) => `${quoteIdent(column)}::text`);
  return `select ${[key, ...texts, `${quoteIdent(table.vectorColumn)}::text`, `(${distance})::float8`].join(", ")}
  from ${table.relation}
 where ${quoteIdent(table.vectorColumn)} is not null
 order by ${distance}
 limit ${limit}`;
}

function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let at = 0; at < Math.min(a.length, b.length); at++) {
    dot += (a[at] as number) * (b[at] as number);
    normA += (a[at] as number) ** 2;
    normB += (b[at] as number) ** 2;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * Maximal marginal relevance: picks `count` candidates one by one, each maximising
 * lambda·similarity(query) − (1 − lambda)·(greatest similarity to one already picked), so that
 * near-duplicates give way to rows that add something. Returns the picked indexes in order.
 */
export function maximalMarginalRelevance(
  query: readonly number[],
  candidates: readonly (readonly number[])[],
  count: number,
  lambda: number,
): number[] {
  const relevance = candidates.map((candidate) => cosineSimilarity(query, candidate));
  const picked: number[] = [];
  const left = new Set(candidates.map((_, at) => at));
  while (picked.length < count && left.size > 0) {
    let best = -1;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (const at of left) {
      const redundancy = Math.max(
        0,
        ...picked.map((other) => cosineSimilarity(candidates[at] as number[], candidates[other] as number[])),
      );
      const score = lambda * (relevance[at] as number) - (1 - lambda) * redundancy;
      if (score > bestScore) {
        bestScore = score;
        best = at;
      }
    }
    picked.push(best);
    left.delete(best);
  }
  return picked;
}

/** Rough token count (four characters a token), as the size limits are meant. */
export function estimateTokens(value: string): number {
  return Math.ceil(value.length / 4);
}

/** Splits text into chunks of about `tokens` tokens at word boundaries. */
export function chunkText(value: string, tokens: number): string[] {
  const words = value.split(/\s+/).filter(Boolean);
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  for (const word of words) {
    const cost = estimateTokens(`${word} `);
    if (current.length > 0 && size + cost > tokens) {
      chunks.push(current.join(" "));
      current = [];
      size = 0;
    }
    current.push(word);
    size += cost;
  }
  if (current.length > 0) {
    chunks.push(current.join(" "));
  }
  return chunks;
}

export const similaritySearch = defineTool({
  name: "similarity_search",
  privilege: "similarity_search",
  description:
    "Semantic search over a table of a monitored database that stores pgvector embeddings: the query text is embedded with dbmon's configured embedding provider (it must be the model that filled the table), the nearest rows are found with pgvector's distance operator (`distance_metric` cosine, l2 or inner_product) and `top_n` diverse ones are kept by maximal marginal relevance (`lambda` 1 = relevance only, 0 = diversity only). Each result shows the row's key, its distance and its text columns, cut into chunks of about `chunk_size_tokens` tokens; the whole answer stays within `max_output_tokens`. `output_format` summary gives the first chunk of each row, ids_only only keys and distances. Use get_schema_info with vector_tables_only to find such tables. Runs in a READ ONLY transaction.",
  compactDescription: "pgvector semantic search over a table's embeddings.",
  input: {
    table_name: z.string().min(1).describe("Table with a vector column, as table or schema.table"),
    query_text: z.string().min(1).max(10_000).describe("What to look for, in words"),
    ...connectionArgs,
    top_n: z.number().int().min(1).max(50).default(10).describe("Results returned"),
    chunk_size_tokens: z.number().int().min(10).max(2_000).default(100).describe("Tokens per text chunk"),
    lambda: z.number().min(0).max(1).default(0.6).describe("Relevance against diversity (MMR)"),
    max_output_tokens: z
      .number()
      .int()
      .min(50)
      .max(20_000)
      .default(1_000)
      .describe("Size of the whole answer"),
    distance_metric: z.enum(["cosine", "l2", "inner_product"]).default("cosine"),
    output_format: z.enum(["full", "summary", "ids_only"]).default("full"),
  },
  async run(context, args) {
    if (!context.services.llm.embedder) {
      return failure(
        "similarity_search needs an embedding provider to embed the query: configure DBMON_LLM_EMBED_PROVIDER (the model that embedded the table)",
      );
    }
    const bound = await boundConnection(context, args);
    const [installed] = await runRead(
      context,
      bound,
      "select count(*) from pg_extension where extname = 'vector'",
    );
    if (installed?.error) {
      return failure(installed.error);
    }
    const database = bound.databaseName ?? bound.row.databaseName;
    if (installed?.rows[0]?.[0] !== "1") {
      return failure(
        `similarity_search needs the pgvector extension, which is not installed in database ${database} of connection ${bound.row.id} (CREATE EXTENSION vector)`,
      );
    }
    const [described] = await runRead(context, bound, describeTableSql(args.table_name));
    if (described?.error) {
      return failure(described.error);
    }
    const table = vectorTableOf(args.table_name, described as StatementResult);
    if (typeof table === "string") {
      return failure(table);
    }
    const embedded = await context.services.llmProxy.embed(
      { input: args.query_text, input_type: "query" },
      context.signal,
    );
    const vector = embedded.embeddings[0] ?? [];
    if (table.dimensions !== null && table.dimensions !== vector.length) {
      return failure(
        `${table.relation}.${table.vectorColumn} holds ${table.dimensions}-dimensional vectors, but ${embedded.model} gives ${vector.length}: the table was embedded with another model`,
      );
    }
    const pool = Math.min(args.top_n * CANDIDATES_PER_RESULT, MAX_CANDIDATES);
    const [nearest] = await runRead(
      context,
      bound,
      nearestRowsSql(table, vector, args.distance_metric, pool),
      pool,
    );
    if (!nearest || nearest.error) {
      return failure(nearest?.error ?? "The server returned nothing");
    }
    const rows = nearest.rows.map((row) => ({
      key: row[0] ?? "",
      texts: table.textColumns.map((column, at) => [column, row[at + 1] ?? null] as const),
      vector: JSON.parse(row[table.textColumns.length + 1] ?? "[]") as number[],
      distance: Number(row[table.textColumns.length + 2]),
    }));
    const picked = maximalMarginalRelevance(
      vector,
      rows.map((row) => row.vector),
      args.top_n,
      args.lambda,
    ).map((at) => rows[at] as (typeof rows)[number]);
    const header = `${picked.length} of the rows nearest to the query in ${table.relation} (${table.vectorColumn}, ${args.distance_metric} distance, ${embedded.model})`;
    if (picked.length === 0) {
      return text(`No rows with embeddings in ${table.relation}`);
    }
    const keyName = table.keyColumn ?? "ctid";
    let budget = args.max_output_tokens - estimateTokens(header);
    const parts: string[] = [];
    for (const [at, row] of picked.entries()) {
      const lines = [`[${at + 1}] ${keyName}=${row.key} distance=${row.distance.toFixed(4)}`];
      if (args.output_format !== "ids_only") {
        for (const [column, value] of row.texts) {
          if (value !== null) {
            const chunks = chunkText(value, args.chunk_size_tokens);
            lines.push(
              `${column}: ${(args.output_format === "summary" ? chunks.slice(0, 1) : chunks).join("\n")}`,
            );
          }
        }
      }
      const part = lines.join("\n");
      if (budget < MIN_PART_TOKENS) {
        parts.push(`(${picked.length - at} more results left out to stay within max_output_tokens)`);
        break;
      }
      // A result longer than what is left is cut rather than dropped.
      parts.push(estimateTokens(part) > budget ? `${part.slice(0, budget * 4)}…` : part);
      budget -= estimateTokens(part);
    }
    return text([header, ...parts].join("\n\n"));
  },
});

export const similarityTools = [similaritySearch];
