import { listLlmModels } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listLlmModelsHandler = implement(listLlmModels, async (c) =>
  c.json(await c.get("services").llmProxy.models(c.req.valid("query").provider, c.req.raw.signal), 200),
);
