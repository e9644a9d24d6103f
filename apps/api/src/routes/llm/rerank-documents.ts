import { rerankDocuments } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const rerankDocumentsHandler = implement(rerankDocuments, async (c) =>
  c.json(await c.get("services").llmProxy.rerank(c.req.valid("json"), c.req.raw.signal), 200),
);
