import { listLlmProviders } from "@dbmon/contract";
import { implement } from "../../http/operations.js";

export const listLlmProvidersHandler = implement(listLlmProviders, (c) =>
  c.json(c.get("services").llmProxy.providers(), 200),
);
