import { getServerAiAnalysis } from "@dbmon/contract";
import { readServerInfo } from "@dbmon/datastore";
import { getDatabaseAnalysis } from "@dbmon/llm";
import { guarded } from "../../auth/guard.js";
import type { App } from "../../http/app-type.js";

export function registerGetServerAiAnalysis(app: App): void {
  const requirement = { connection: { param: "connection_id", level: "read" as const } };
  app.openapi(guarded(getServerAiAnalysis, requirement), async (c) => {
    const connectionId = c.req.valid("param").connection_id;
    const { datastore, llm, clock, logger } = c.get("services");
    const analysis = await getDatabaseAnalysis({
      db: datastore.db,
      llm,
      clock,
      logger,
      connectionId,
      signal: c.req.raw.signal,
      loadDatabases: async () =>
        // Read afresh, not the reused document: an analysis is kept for five minutes.
        ((await readServerInfo(datastore, connectionId))?.databases ?? []).map((database) => ({
          name: database.name,
          size_bytes: database.size_bytes,
          extensions: database.extensions,
        })),
    });
    return c.json(analysis, 200);
  });
}
