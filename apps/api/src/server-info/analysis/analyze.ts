import type { LlmClient } from "@dbmon/llm";
import { parseAnalysis } from "./parse.js";
import { ANALYSIS_INSTRUCTIONS, type DatabaseFacts, describeDatabases } from "./prompt.js";

/** Beyond this many databases only the largest are described, which keeps the request bounded. */
export const MAX_ANALYSED_DATABASES = 100;

/** Room for one sentence per database, plus slack for a model that adds a line or two. */
const TOKENS_PER_DATABASE = 64;
const BASE_TOKENS = 256;

export interface AnalyzeDatabasesOptions {
  llm: LlmClient;
  databases: DatabaseFacts[];
  signal?: AbortSignal;
}

/**
 * Asks the model what each database is likely for: database name → one-sentence description. The
 * map holds only databases the answer described, so it may be empty. Provider failures reject with
 * an LlmError.
 */
export async function analyzeDatabases(options: AnalyzeDatabasesOptions): Promise<Record<string, string>> {
  const databases = [...options.databases]
    .sort((a, b) => (b.size_bytes ?? -1) - (a.size_bytes ?? -1))
    .slice(0, MAX_ANALYSED_DATABASES);
  const completion = await options.llm.complete({
    system: ANALYSIS_INSTRUCTIONS,
    messages: [{ role: "user", content: describeDatabases(databases) }],
    maxTokens: BASE_TOKENS + TOKENS_PER_DATABASE * databases.length,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return parseAnalysis(
    completion.text,
    databases.map((database) => database.name),
  );
}
