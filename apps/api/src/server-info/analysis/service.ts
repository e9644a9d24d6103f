import { type Datastore, readServerInfo } from "@dbmon/datastore";
import type { LlmClient } from "@dbmon/llm";
import type { Clock } from "../../clock.js";
import type { Logger } from "../../logger.js";
import { type DatabaseAnalysis, getDatabaseAnalysis } from "./cache.js";

/** The AI description of each database of a connection (GET …/ai-analysis). */
export class ServerAnalysis {
  constructor(
    private readonly deps: { datastore: Datastore; llm: LlmClient | null; clock: Clock; logger: Logger },
  ) {}

  /** The analysis, or null (no provider, no collected databases, or the provider failed). */
  get(connectionId: number, signal?: AbortSignal): Promise<DatabaseAnalysis | null> {
    const { datastore, llm, clock, logger } = this.deps;
    return getDatabaseAnalysis({
      db: datastore.db,
      llm,
      clock,
      logger,
      connectionId,
      ...(signal ? { signal } : {}),
      loadDatabases: async () =>
        // Read afresh, not the reused document: an analysis is kept for five minutes.
        ((await readServerInfo(datastore, connectionId))?.databases ?? []).map((database) => ({
          name: database.name,
          size_bytes: database.sizeBytes,
          extensions: database.extensions,
        })),
    });
  }
}
