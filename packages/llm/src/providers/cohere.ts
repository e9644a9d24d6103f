import { CohereClient, CohereClientV2, CohereError, CohereTimeoutError } from "cohere-ai";
import type { Reranker } from "../client.js";
import type { ProviderConfig } from "../config.js";
import { guardCall, revealHeaders } from "./errors.js";
import { classifyFernError } from "./voyage.js";

const classify = (error: unknown) =>
  classifyFernError(error, { Error: CohereError, Timeout: CohereTimeoutError });

function options(config: ProviderConfig) {
  return {
    token: config.apiKey?.reveal() ?? "",
    baseUrl: config.baseUrl,
    timeoutInSeconds: config.timeoutMs / 1000,
    maxRetries: config.maxRetries,
    headers: revealHeaders(config),
  };
}

export function createCohereReranker(config: ProviderConfig, defaultModel: string): Reranker {
  const sdk = new CohereClientV2(options(config));
  return {
    provider: "cohere",
    model: defaultModel,
    rerank: ({ query, documents, topK, model, signal }) =>
      guardCall(config, classify, async () => {
        const answer = await sdk.rerank(
          { query, documents, model: model ?? defaultModel, ...(topK ? { topN: topK } : {}) },
          signal ? { abortSignal: signal } : {},
        );
        return {
          model: model ?? defaultModel,
          results: answer.results.map((item) => ({ index: item.index, relevanceScore: item.relevanceScore })),
          usage: { searchUnits: answer.meta?.billedUnits?.searchUnits ?? 0 },
        };
      }),
  };
}

/** A reachability probe: Cohere's model list. */
export async function probeCohere(config: ProviderConfig, signal?: AbortSignal): Promise<void> {
  const sdk = new CohereClient(options(config));
  await guardCall(config, classify, () => sdk.models.list({}, signal ? { abortSignal: signal } : {}));
}
