import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { LlmConfigError, loadLlmConfig } from "../src/index.js";

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
    expect(config).toMatchObject({
      provider: "anthropic",
      model: "claude-test",
      baseUrl: "https://api.anthropic.com",
      timeoutMs: 120_000,
      maxRetries: 2,
    });
    expect(config?.apiKey?.reveal()).toBe(KEY);
  });

  it.each([
    ["openai", { OPENAI_API_KEY: KEY }, "https://api.openai.com/v1"],
    ["gemini", { GEMINI_API_KEY: KEY }, "https://generativelanguage.googleapis.com/v1beta/openai"],
    ["ollama", {}, "http://localhost:11434/v1"],
  ])("gives %s its default base URL", (provider, keys, baseUrl) => {
    const config = loadLlmConfig({ DBMON_LLM_PROVIDER: provider, DBMON_LLM_MODEL: "m", ...keys });
    expect(config?.baseUrl).toBe(baseUrl);
  });

  it("accepts base URLs with or without /v1 where the SDKs differ", () => {
    const anthropic = { DBMON_LLM_PROVIDER: "anthropic", DBMON_LLM_MODEL: "m", ANTHROPIC_API_KEY: KEY };
    expect(loadLlmConfig({ ...anthropic, DBMON_LLM_BASE_URL: "http://proxy:8000/v1/" })?.baseUrl).toBe(
      "http://proxy:8000",
    );
    const ollama = { DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "llama3" };
    expect(loadLlmConfig({ ...ollama, DBMON_LLM_BASE_URL: "http://gpu-box:11434" })?.baseUrl).toBe(
      "http://gpu-box:11434/v1",
    );
    expect(loadLlmConfig({ ...ollama, DBMON_LLM_BASE_URL: "http://gpu-box:11434/v1" })?.baseUrl).toBe(
      "http://gpu-box:11434/v1",
    );
  });

  it("needs no key for Ollama, nor for an OpenAI-compatible server at its own address", () => {
    expect(loadLlmConfig({ DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m" })?.apiKey).toBeUndefined();
    const local = loadLlmConfig({
      DBMON_LLM_PROVIDER: "openai",
      DBMON_LLM_MODEL: "m",
      DBMON_LLM_BASE_URL: "http://127.0.0.1:8000/v1",
    });
    expect(local?.apiKey).toBeUndefined();
  });

  it("does not hand Ollama another provider's key", () => {
    const config = loadLlmConfig({ DBMON_LLM_PROVIDER: "ollama", DBMON_LLM_MODEL: "m", OPENAI_API_KEY: KEY });
    expect(config?.apiKey).toBeUndefined();
  });

  it("reads the timeout and the retries", () => {
    const config = loadLlmConfig({
      DBMON_LLM_PROVIDER: "ollama",
      DBMON_LLM_MODEL: "m",
      DBMON_LLM_TIMEOUT_SECONDS: "30",
      DBMON_LLM_MAX_RETRIES: "0",
    });
    expect(config).toMatchObject({ timeoutMs: 30_000, maxRetries: 0 });
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
    expect(`${config?.apiKey}`).not.toContain(KEY);
  });
});
