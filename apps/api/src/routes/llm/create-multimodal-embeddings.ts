import { createMultimodalEmbeddings } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const createMultimodalEmbeddingsHandler = implement(createMultimodalEmbeddings, async (c) =>
  c.json(await c.get("services").llmProxy.embedMultimodal(c.req.valid("json"), c.req.raw.signal), 200),
);
