import { z } from "zod";
import { Secret } from "./secret.js";

export const llmProviders = ["anthropic", "openai", "gemini", "ollama"] as const;
export type LlmProviderName = (typeof llmProviders)[number];

/** The variable each provider reads its API key from; Ollama takes none. */
const apiKeyVariables = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  gemini: "GEMINI_API_KEY",
} as const;

/**
 * Where each provider is reached when DBMON_LLM_BASE_URL is not set. Gemini and Ollama are used
 * through their OpenAI-compatible endpoints.
 */
const defaultBaseUrls: Record<LlmProviderName, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta/openai",
  ollama: "http://localhost:11434/v1",
};

export interface LlmConfig {
  provider: LlmProviderName;
  model: string;
  /** The base URL handed to the provider's SDK. */
  baseUrl: string;
  /** Absent only for Ollama and for OpenAI-compatible servers that need no key. */
  apiKey: Secret | undefined;
  /** Time allowed for one request to the provider. */
  timeoutMs: number;
  /** Retries of a failed request (connection errors, 408, 409, 429, 5xx), made by the SDK. */
  maxRetries: number;
}

export class LlmConfigError extends Error {
  override name = "LlmConfigError";
}

const httpUrl = z.string().refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  },
  { error: "must be an http:// or https:// URL" },
);

const environment = z
  .object({
    DBMON_LLM_PROVIDER: z
      .enum(llmProviders, { error: `must be one of ${llmProviders.join(", ")}` })
      .optional(),
    DBMON_LLM_MODEL: z
      .string()
      .trim()
      .min(1)
      .max(256, { error: "must be at most 256 characters" })
      .optional(),
    DBMON_LLM_BASE_URL: httpUrl.optional(),
    DBMON_LLM_TIMEOUT_SECONDS: z.coerce
      .number({ error: "must be a whole number of seconds from 1 to 3600" })
      .int({ error: "must be a whole number of seconds from 1 to 3600" })
      .min(1, { error: "must be a whole number of seconds from 1 to 3600" })
      .max(3600, { error: "must be a whole number of seconds from 1 to 3600" })
      .default(120),
    DBMON_LLM_MAX_RETRIES: z.coerce
      .number({ error: "must be a whole number from 0 to 10" })
      .int({ error: "must be a whole number from 0 to 10" })
      .min(0, { error: "must be a whole number from 0 to 10" })
      .max(10, { error: "must be a whole number from 0 to 10" })
      .default(2),
    ANTHROPIC_API_KEY: z.string().optional(),
    OPENAI_API_KEY: z.string().optional(),
    GEMINI_API_KEY: z.string().optional(),
  })
  .superRefine((e, context) => {
    if (!e.DBMON_LLM_PROVIDER) {
      return;
    }
    if (!e.DBMON_LLM_MODEL) {
      context.addIssue({
        code: "custom",
        path: ["DBMON_LLM_MODEL"],
        message: "is required when DBMON_LLM_PROVIDER is set",
      });
    }
    const keyVariable = e.DBMON_LLM_PROVIDER === "ollama" ? undefined : apiKeyVariables[e.DBMON_LLM_PROVIDER];
    // An OpenAI-compatible server at a base URL of its own may need no key.
    const keyOptional = e.DBMON_LLM_PROVIDER === "openai" && e.DBMON_LLM_BASE_URL !== undefined;
    if (keyVariable && !e[keyVariable] && !keyOptional) {
      context.addIssue({
        code: "custom",
        path: [keyVariable],
        message: `is required when DBMON_LLM_PROVIDER is ${e.DBMON_LLM_PROVIDER}`,
      });
    }
  });

/**
 * Reads the LLM provider settings from the environment: `null` when DBMON_LLM_PROVIDER is not set
 * (no provider), otherwise a checked configuration. The error names the first wrong variable and
 * never its value.
 */
export function loadLlmConfig(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const values = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const parsed = environment.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    throw new LlmConfigError(`Invalid LLM configuration: ${variable} ${issue?.message ?? "is invalid"}`);
  }
  const e = parsed.data;
  if (!e.DBMON_LLM_PROVIDER || !e.DBMON_LLM_MODEL) {
    return null;
  }
  const provider = e.DBMON_LLM_PROVIDER;
  const apiKey = provider === "ollama" ? undefined : e[apiKeyVariables[provider]];
  return {
    provider,
    model: e.DBMON_LLM_MODEL,
    baseUrl: normaliseBaseUrl(provider, e.DBMON_LLM_BASE_URL ?? defaultBaseUrls[provider]),
    apiKey: apiKey ? new Secret(apiKey) : undefined,
    timeoutMs: e.DBMON_LLM_TIMEOUT_SECONDS * 1000,
    maxRetries: e.DBMON_LLM_MAX_RETRIES,
  };
}

/**
 * Accepts a base URL written either way round: the Anthropic SDK adds `/v1` itself, while Ollama's
 * OpenAI-compatible API lives under `/v1` of the server's address.
 */
function normaliseBaseUrl(provider: LlmProviderName, baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  if (provider === "anthropic") {
    return trimmed.replace(/\/v1$/, "");
  }
  if (provider === "ollama" && !trimmed.endsWith("/v1")) {
    return `${trimmed}/v1`;
  }
  return trimmed;
}
