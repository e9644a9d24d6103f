/** LLM clients aimed at the fake provider, configured through the environment as in production. */
import {
  type ChatProviderName,
  type LlmClient,
  type LlmConfig,
  LlmProviders,
  loadLlmConfig,
  type ProviderConfig,
} from "../index.js";
import type { FakeProvider } from "./fake-provider.js";

export const TEST_KEY = "sk-test-0123456789-very-secret";

/**
 * The environment of every provider aimed at the fake one, all keyed with TEST_KEY and without
 * retries; `chat` picks the default chat provider (model `<provider>-test-model`).
 */
export function fakeProviderEnv(
  fake: FakeProvider,
  chat: ChatProviderName | undefined = "anthropic",
): Record<string, string> {
  return {
    ...(chat ? { DBMON_LLM_PROVIDER: chat, DBMON_LLM_MODEL: `${chat}-test-model` } : {}),
    DBMON_LLM_ANTHROPIC_BASE_URL: fake.anthropicBaseUrl,
    DBMON_LLM_OPENAI_BASE_URL: fake.openaiBaseUrl,
    DBMON_LLM_GEMINI_BASE_URL: fake.openaiBaseUrl,
    DBMON_LLM_OLLAMA_URL: fake.anthropicBaseUrl,
    DBMON_LLM_VOYAGE_BASE_URL: fake.openaiBaseUrl,
    DBMON_LLM_COHERE_BASE_URL: fake.anthropicBaseUrl,
    DBMON_LLM_MAX_RETRIES: "0",
    ANTHROPIC_API_KEY: TEST_KEY,
    OPENAI_API_KEY: TEST_KEY,
    GEMINI_API_KEY: TEST_KEY,
    VOYAGE_API_KEY: TEST_KEY,
    COHERE_API_KEY: TEST_KEY,
  };
}

/** A configuration with `provider` as the chat provider, aimed at the fake provider. */
export function configFor(
  fake: FakeProvider,
  provider: ChatProviderName,
  overrides: Partial<ProviderConfig> = {},
): LlmConfig {
  const config = loadLlmConfig({
    DBMON_LLM_PROVIDER: provider,
    DBMON_LLM_MODEL: `${provider}-test-model`,
    DBMON_LLM_BASE_URL:
      provider === "anthropic" || provider === "ollama" ? fake.anthropicBaseUrl : fake.openaiBaseUrl,
    DBMON_LLM_MAX_RETRIES: "0",
    ANTHROPIC_API_KEY: TEST_KEY,
    OPENAI_API_KEY: TEST_KEY,
    GEMINI_API_KEY: TEST_KEY,
  });
  if (!config) {
    throw new Error("the test configuration names a provider");
  }
  return {
    ...config,
    providers: config.providers.map((entry) =>
      entry.name === provider ? { ...entry, timeoutMs: 2_000, ...overrides } : entry,
    ),
  };
}

export function clientFor(
  fake: FakeProvider,
  provider: ChatProviderName,
  overrides: Partial<ProviderConfig> = {},
): LlmClient {
  const client = new LlmProviders(configFor(fake, provider, overrides)).defaultChat;
  if (!client) {
    throw new Error("the test configuration names a chat provider");
  }
  return client;
}
