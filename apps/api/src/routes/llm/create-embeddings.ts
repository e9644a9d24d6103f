import { createEmbeddings } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createEmbeddingsHandler = implement(createEmbeddings, async (c) =>
  c.json(await c.get("services").llmProxy.embed(c.req.valid("json"), c.req.raw.signal), 200),
);
