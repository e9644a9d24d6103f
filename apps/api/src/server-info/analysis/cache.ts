import { type Db, schema } from "@dbmon/datastore";
import { type LlmClient, LlmError } from "@dbmon/llm";
import { eq, sql } from "drizzle-orm";
import { analyzeDatabases } from "./analyze.js";
import type { DatabaseFacts } from "./prompt.js";

/** How long an analysis is served before the provider is asked again. */
export const ANALYSIS_TTL_MS = 5 * 60 * 1000;

/** The body of GET /api/v1/server-info/{connection_id}/ai-analysis when there is an analysis. */
export interface DatabaseAnalysis {
  /** Database name → one-sentence description of its likely purpose. */
  databases: Record<string, string>;
  /** When the provider produced it, ISO 8601. */
  generated_at: string;
}

/** The slice of a pino logger the analysis uses. */
export interface AnalysisLogger {
  warn(obj: object, msg?: string): void;
}

export interface GetDatabaseAnalysisOptions {
  db: Db;
  /** `null` when no provider is configured. */
  llm: LlmClient | null;
  clock: { now(): Date };
  logger: AnalysisLogger;
  connectionId: number;
  /** The connection's databases as the collector last saw them; only called on a cache miss. */
  loadDatabases(): Promise<DatabaseFacts[]>;
  signal?: AbortSignal;
}

/**
 * The AI analysis of a connection's databases, shared by every API instance through the datastore
 * for five minutes. `null` when no provider is configured, when the connection has no databases,
 * and when the provider fails or its answer describes none of them; these outcomes are not cached,
 * so the next request tries again.
 */
export async function getDatabaseAnalysis(
  options: GetDatabaseAnalysisOptions,
): Promise<DatabaseAnalysis | null> {
  const { db, llm, connectionId } = options;
  if (!llm) {
    return null;
  }
  const [cached] = await db
    .select()
    .from(schema.aiAnalysisCache)
    .where(eq(schema.aiAnalysisCache.connectionId, connectionId));
  if (cached && options.clock.now().getTime() - cached.generatedAt.getTime() < ANALYSIS_TTL_MS) {
    return { databases: cached.databases, generated_at: cached.generatedAt.toISOString() };
  }

  const databases = await options.loadDatabases();
  if (databases.length === 0) {
    return null;
  }
  let described: Record<string, string>;
  try {
    described = await analyzeDatabases({
      llm,
      databases,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    options.logger.warn(
      { connectionId, provider: llm.provider, model: llm.model, err: describeError(error) },
      "AI analysis failed: the provider call did not succeed",
    );
    return null;
  }
  if (Object.keys(described).length === 0) {
    options.logger.warn(
      { connectionId, provider: llm.provider, model: llm.model },
      "AI analysis failed: the answer described none of the databases",
    );
    return null;
  }

  const generatedAt = options.clock.now();
  await db
    .insert(schema.aiAnalysisCache)
    .values({ connectionId, databases: described, generatedAt })
    .onConflictDoUpdate({
      target: schema.aiAnalysisCache.connectionId,
      set: { databases: described, generatedAt },
      // Two instances that missed at once: the later analysis stays.
      setWhere: sql`${schema.aiAnalysisCache.generatedAt} < excluded.generated_at`,
    });
  return { databases: described, generated_at: generatedAt.toISOString() };
}

/** An LlmError's message is free of secrets; anything else is reduced to its class name. */
function describeError(error: unknown): string {
  if (error instanceof LlmError) {
    return error.message;
  }
  return error instanceof Error ? error.name : typeof error;
}
