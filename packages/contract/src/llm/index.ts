import { chatWithLlm } from "./chat-with-llm.js";
import { createEmbeddings } from "./create-embeddings.js";
import { createMultimodalEmbeddings } from "./create-multimodal-embeddings.js";
import { getLlmHealth } from "./get-llm-health.js";
import { listLlmModels } from "./list-llm-models.js";
import { listLlmProviders } from "./list-llm-providers.js";
import { rerankDocuments } from "./rerank-documents.js";
import { streamLlmChat } from "./stream-llm-chat.js";

export * from "./chat-with-llm.js";
export * from "./create-embeddings.js";
export * from "./create-multimodal-embeddings.js";
export * from "./get-llm-health.js";
export * from "./list-llm-models.js";
export * from "./list-llm-providers.js";
export * from "./rerank-documents.js";
export * from "./schemas.js";
export * from "./stream-llm-chat.js";

export const llmOperations = [
  listLlmProviders,
  listLlmModels,
  getLlmHealth,
  chatWithLlm,
  streamLlmChat,
  createEmbeddings,
  createMultimodalEmbeddings,
  rerankDocuments,
] as const;
