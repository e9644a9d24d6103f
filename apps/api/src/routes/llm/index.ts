import { chatWithLlmHandler } from "./chat-with-llm.js";
import { createEmbeddingsHandler } from "./create-embeddings.js";
import { createMultimodalEmbeddingsHandler } from "./create-multimodal-embeddings.js";
import { getLlmHealthHandler } from "./get-llm-health.js";
import { listLlmModelsHandler } from "./list-llm-models.js";
import { listLlmProvidersHandler } from "./list-llm-providers.js";
import { rerankDocumentsHandler } from "./rerank-documents.js";
import { streamLlmChatHandler } from "./stream-llm-chat.js";

export const llmHandlers = [
  listLlmProvidersHandler,
  listLlmModelsHandler,
  getLlmHealthHandler,
  chatWithLlmHandler,
  streamLlmChatHandler,
  createEmbeddingsHandler,
  createMultimodalEmbeddingsHandler,
  rerankDocumentsHandler,
];
