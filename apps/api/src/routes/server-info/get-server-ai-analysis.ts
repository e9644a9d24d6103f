import { getServerAiAnalysis } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const getServerAiAnalysisHandler = implement(getServerAiAnalysis, async (c) => {
  const connectionId = c.req.valid("param").connection_id;
  return c.json(await c.get("services").serverAnalysis.get(connectionId, c.req.raw.signal), 200);
});
