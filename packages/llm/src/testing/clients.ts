/** LLM clients aimed at the fake provider, configured through the environment as in production. */
import {
  createLlmClient,
  type LlmClient,
  type LlmConfig,
  type LlmProviderName,
  loadLlmConfig,
} from "../index.js";
import type { FakeProvider } from "./fake-provider.js";

export const TEST_KEY = "sk-test-0123456789-very-secret";

/** A configuration through the environment, as in production, aimed at the fake provider. */
export function configFor(
  fake: FakeProvider,
  provider: LlmProviderName,
  overrides: Partial<LlmConfig> = {},
): LlmConfig {
  const config = loadLlmConfig({
    DBMON_LLM_PROVIDER: provider,
    DBMON_LLM_MODEL: `${provider}-test-model`,
    DBMON_LLM_BASE_URL: provider === "anthropic" ? fake.anthropicBaseUrl : fake.openaiBaseUrl,
    DBMON_LLM_MAX_RETRIES: "0",
    ANTHROPIC_API_KEY: TEST_KEY,
    OPENAI_API_KEY: TEST_KEY,
    GEMINI_API_KEY: TEST_KEY,
  });
  if (!config) {
    throw new Error("the test configuration names a provider");
  }
  return { ...config, timeoutMs: 2_000, ...overrides };
}

export function clientFor(
  fake: FakeProvider,
  provider: LlmProviderName,
  overrides: Partial<LlmConfig> = {},
): LlmClient {
  return createLlmClient(configFor(fake, provider, overrides));
}
