import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { type LlmConfig, LlmConfigError, loadLlmConfig } from "../src/index.js";

const KEY = "sk-config-test-secret-value";

function loadError(env: NodeJS.ProcessEnv): LlmConfigError {
  try {
    loadLlmConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(LlmConfigError);
    return error as LlmConfigError;
  }
  throw new Error("expected the configuration to be rejected");
}

/** The settings of the default chat provider. */
function main(config: LlmConfig | null) {
  return config?.providers.find((provider) => provider.name === config.chat?.provider);
}

describe("loadLlmConfig", () => {
  it("is null when no provider is set, whatever else is", () => {
    expect(loadLlmConfig({})).toBeNull();
    expect(loadLlmConfig({ DBMON_LLM_PROVIDER: "", DBMON_LLM_MODEL: "m", OPENAI_API_KEY: KEY })).toBeNull();
  });

  it("reads an Anthropic configuration with the defaults", () => {
    const config = loadLlmConfig({
      DBMON_LLM_PROVIDER: "anthropic",
      DBMON_LLM_MODEL: "claude-test",
      ANTHROPIC_API_KEY: KEY,
    });
    expect(config?.chat).toEqual({ provider: "anthropic", model: "claude-test" });
    expect(main(config)).toMatchObject({
      name: "anthropic",
      baseUrl: "https://api.anthropic.com",
      timeoutMs: 120_000,
      maxRetries: 2,
      headers: {},
    });
    expect(main(config)?.apiKey?.reveal()).toBe(KEY);
    expect(config).toMatchObject({ maxTokens: 4096, temperature: 0.7, embed: null, rerank: null });
  });

  it.each([
    ["openai", { OPENAI_API_KEY: KEY }, "https://api.openai.com/v1"],
    ["gemini", { GEMINI_API_KEY: KEY }, "https://generativelanguage.googleapis.com/v1beta/openai"],
    ["ollama", {}, "http://localhost:11434"],
  ])("gives %s its default base URL", (provider, keys, baseUrl) => {
    const config = loadLlmConfig({ DBMON_LLM_PROVIDER: provider, DBMON_LLM_MODEL: "m", ...keys });
    expect(main(config)?.baseUrl).toBe(baseUrl);
  });

  it("accepts base URLs with or without /v1 where the SDKs differ", () => {
    const anthropic = { DBMON_LLM_PROVIDER: "anthropic", DBMON_LLM_MODEL: "m", ANTHROPIC_API_KEY: KEY };
    expect(main(loadLlmConfig({ ...anthropic, DBMON_LLM_BASE_URL: "http://proxy:8000/v1/" }))?.baseUrl).toBe(
      "http://proxy:8000",
    );
    const ollama = { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "llama3" };
    expect(main(loadLlmConfig({ ...ollama, DBMON_LLM_BASE_URL: "http://gpu-box:11434" }))?.baseUrl).toBe(
      "http://gpu-box:11434",
    );
    expect(main(loadLlmConfig({ ...ollama, DBMON_LLM_BASE_URL: "http://gpu-box:11434/v1" }))?.baseUrl).toBe(
      "http://gpu-box:11434",
    );
  });

  it("needs no key for Ollama, nor for an OpenAI-compatible server at its own address", () => {
    expect(
      main(loadLlmConfig({ DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m" }))?.apiKey,
    ).toBeUndefined();
    const local = loadLlmConfig({
      DBMON_LLM_PROVIDER: "openai",
      DBMON_LLM_MODEL: "m",
      DBMON_LLM_BASE_URL: "http://127.0.0.1:8000/v1",
    });
    expect(main(local)?.apiKey).toBeUndefined();
  });

  it("does not hand Ollama another provider's key", () => {
    const config = loadLlmConfig({ DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", OPENAI_API_KEY: KEY });
    expect(main(config)?.apiKey).toBeUndefined();
  });

  it("reads the timeout and the retries", () => {
    const config = loadLlmConfig({
      DBMON_LLM_PROVIDER: "ollama",
      DBMON_LLM_MODEL: "m",
      DBMON_LLM_TIMEOUT_SECONDS: "30",
      DBMON_LLM_MAX_RETRIES: "0",
    });
    expect(main(config)).toMatchObject({ timeoutMs: 30_000, maxRetries: 0 });
  });

  it.each([
    [
      { DBMON_LLM_PROVIDER: "mistral" },
      "DBMON_LLM_PROVIDER must be one of anthropic, openai, gemini, ollama",
    ],
    [{ DBMON_LLM_PROVIDER: "ollama" }, "DBMON_LLM_MODEL is required when DBMON_LLM_PROVIDER is set"],
    [{ DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "   " }, "DBMON_LLM_MODEL"],
    [
      { DBMON_LLM_PROVIDER: "anthropic", DBMON_LLM_MODEL: "m" },
      "ANTHROPIC_API_KEY is required when DBMON_LLM_PROVIDER is anthropic",
    ],
    [
      { DBMON_LLM_PROVIDER: "openai", DBMON_LLM_MODEL: "m" },
      "OPENAI_API_KEY is required when DBMON_LLM_PROVIDER is openai",
    ],
    [
      { DBMON_LLM_PROVIDER: "gemini", DBMON_LLM_MODEL: "m", OPENAI_API_KEY: KEY },
      "GEMINI_API_KEY is required",
    ],
    [
      { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", DBMON_LLM_BASE_URL: "ftp://x" },
      "DBMON_LLM_BASE_URL must be an http:// or https:// URL",
    ],
    [
      { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", DBMON_LLM_BASE_URL: "not a url" },
      "DBMON_LLM_BASE_URL must be",
    ],
    [
      { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", DBMON_LLM_TIMEOUT_SECONDS: "0" },
      "DBMON_LLM_TIMEOUT_SECONDS must be a whole number of seconds from 1 to 3600",
    ],
    [
      { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", DBMON_LLM_TIMEOUT_SECONDS: "soon" },
      "DBMON_LLM_TIMEOUT_SECONDS must be",
    ],
    [
      { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", DBMON_LLM_MAX_RETRIES: "-1" },
      "DBMON_LLM_MAX_RETRIES must be a whole number from 0 to 10",
    ],
  ])("rejects %o naming the variable", (env, message) => {
    const error = loadError(env);
    expect(error.message).toContain(`Invalid LLM configuration: ${message}`);
    expect(error.message.split("\n")).toHaveLength(1);
  });

  it("checks settings even when no provider is chosen", () => {
    expect(loadError({ DBMON_LLM_TIMEOUT_SECONDS: "x" }).message).toContain("DBMON_LLM_TIMEOUT_SECONDS");
  });

  it("never shows the key: not in errors, logs, JSON or string forms", () => {
    const error = loadError({
      DBMON_LLM_PROVIDER: "anthropic",
      DBMON_LLM_MODEL: "m",
      DBMON_LLM_BASE_URL: KEY,
      ANTHROPIC_API_KEY: KEY,
    });
    expect(error.message).not.toContain(KEY);
    const config = loadLlmConfig({
      DBMON_LLM_PROVIDER: "anthropic",
      DBMON_LLM_MODEL: "m",
      ANTHROPIC_API_KEY: KEY,
    });
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(inspect(config, { depth: 10 })).not.toContain(KEY);
    expect(`${main(config)?.apiKey}`).not.toContain(KEY);
  });

  it("configures several providers at once, each capability with its own", () => {
    const config = loadLlmConfig({
      DBMON_LLM_PROVIDER: "openai",
      DBMON_LLM_MODEL: "gpt-test",
      OPENAI_API_KEY: KEY,
      ANTHROPIC_API_KEY: KEY,
      VOYAGE_API_KEY: KEY,
      COHERE_API_KEY: KEY,
      DBMON_LLM_OLLAMA_URL: "http://gpu-box:11434/",
      DBMON_LLM_EMBED_PROVIDER: "ollama",
      DBMON_LLM_MULTIMODAL_PROVIDER: "voyage",
      DBMON_LLM_RERANK_PROVIDER: "cohere",
      DBMON_LLM_RERANK_MODEL: "rerank-test",
    });
    expect(config?.providers.map((provider) => provider.name)).toEqual([
      "anthropic",
      "openai",
      "ollama",
      "voyage",
      "cohere",
    ]);
    expect(config).toMatchObject({
      chat: { provider: "openai", model: "gpt-test" },
      embed: { provider: "ollama", model: "nomic-embed-text" },
      multimodal: { provider: "voyage", model: "voyage-multimodal-3" },
      rerank: { provider: "cohere", model: "rerank-test" },
    });
    expect(config?.providers.find((provider) => provider.name === "ollama")?.baseUrl).toBe(
      "http://gpu-box:11434",
    );
  });

  it("is configured by an embedding or rerank provider alone", () => {
    const config = loadLlmConfig({ DBMON_LLM_RERANK_PROVIDER: "voyage", VOYAGE_API_KEY: KEY });
    expect(config).toMatchObject({ chat: null, rerank: { provider: "voyage", model: "rerank-2.5" } });
    expect(loadError({ DBMON_LLM_EMBED_PROVIDER: "voyage" }).message).toBe(
      "Invalid LLM configuration: VOYAGE_API_KEY is required when DBMON_LLM_EMBED_PROVIDER is voyage",
    );
  });

  it("reads custom headers, the provider's own winning, and keeps their values secret", () => {
    const config = loadLlmConfig({
      DBMON_LLM_PROVIDER: "anthropic",
      DBMON_LLM_MODEL: "m",
      ANTHROPIC_API_KEY: KEY,
      DBMON_LLM_CUSTOM_HEADERS: `X-Team=dba, X-Gateway-Token=${KEY}`,
      DBMON_LLM_ANTHROPIC_CUSTOM_HEADERS: "X-Team=platform",
    });
    const headers = main(config)?.headers ?? {};
    expect(
      Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value.reveal()])),
    ).toEqual({
      "X-Team": "platform",
      "X-Gateway-Token": KEY,
    });
    expect(JSON.stringify(config)).not.toContain(KEY);
    expect(loadError({ DBMON_LLM_CUSTOM_HEADERS: "novalue" }).message).toContain(
      "DBMON_LLM_CUSTOM_HEADERS must be a comma-separated list of Name=value pairs",
    );
  });
});
