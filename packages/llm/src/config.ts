import { z } from "zod";
import { Secret } from "./secret.js";

/** Providers that answer chat requests. */
export const chatProviders = ["anthropic", "openai", "gemini", "ollama"] as const;
export type ChatProviderName = (typeof chatProviders)[number];

/** Every provider dbmon can talk to; Voyage and Cohere serve embeddings and reranking only. */
export const llmProviders = [...chatProviders, "voyage", "cohere"] as const;
export type LlmProviderName = (typeof llmProviders)[number];

export const embedProviders = ["openai", "voyage", "gemini", "ollama"] as const;
export type EmbedProviderName = (typeof embedProviders)[number];
export const multimodalProviders = ["voyage"] as const;
export type MultimodalProviderName = (typeof multimodalProviders)[number];
export const rerankProviders = ["voyage", "cohere"] as const;
export type RerankProviderName = (typeof rerankProviders)[number];

/** The variable each provider reads its API key from; Ollama takes none. */
export const apiKeyVariables = {
  anthropic: "ANTHROPIC_API_KEY",
  openai: "OPENAI_API_KEY",
  gemini: "GEMINI_API_KEY",
  voyage: "VOYAGE_API_KEY",
  cohere: "COHERE_API_KEY",
} as const;

/** The variable of each provider's own address. */
const baseUrlVariables = {
  anthropic: "DBMON_LLM_ANTHROPIC_BASE_URL",
  openai: "DBMON_LLM_OPENAI_BASE_URL",
  gemini: "DBMON_LLM_GEMINI_BASE_URL",
  ollama: "DBMON_LLM_OLLAMA_URL",
  voyage: "DBMON_LLM_VOYAGE_BASE_URL",
  cohere: "DBMON_LLM_COHERE_BASE_URL",
} as const satisfies Record<LlmProviderName, string>;

/** Where each provider is reached by default. Gemini is used through its OpenAI-compatible endpoint. */
const defaultBaseUrls: Record<LlmProviderName, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com/v1",
  gemini: "https://generativelanguage.googleapis.com/v1beta/openai",
  ollama: "http://localhost:11434",
  voyage: "https://api.voyageai.com/v1",
  cohere: "https://api.cohere.com",
};

/** Models used when a capability names its provider but no model. */
export const defaultModels = {
  embed: {
    openai: "text-embedding-3-small",
    voyage: "voyage-3.5",
    gemini: "gemini-embedding-001",
    ollama: "nomic-embed-text",
  },
  multimodal: { voyage: "voyage-multimodal-3" },
  rerank: { voyage: "rerank-2.5", cohere: "rerank-v3.5" },
} as const;

/** How dbmon reaches one provider. */
export interface ProviderConfig {
  name: LlmProviderName;
  /** The base URL handed to the provider's SDK. */
  baseUrl: string;
  /** Absent only for Ollama and for OpenAI-compatible servers that need no key. */
  apiKey: Secret | undefined;
  /** Extra HTTP headers sent with every request; values may be credentials, so they are kept secret. */
  headers: Record<string, Secret>;
  /** Time allowed for one request to the provider. */
  timeoutMs: number;
  /** Retries of a failed request (connection errors, 408, 409, 429, 5xx), made by the SDK. */
  maxRetries: number;
}

export interface Capability<P extends LlmProviderName> {
  provider: P;
  model: string;
}

export interface LlmConfig {
  /** Every configured provider, in the order they are listed. */
  providers: ProviderConfig[];
  /** The default chat provider and model; null when chat is off. */
  chat: Capability<ChatProviderName> | null;
  embed: Capability<EmbedProviderName> | null;
  multimodal: Capability<MultimodalProviderName> | null;
  rerank: Capability<RerankProviderName> | null;
  /** Upper bound on the tokens of a chat answer. */
  maxTokens: number;
  /** Sampling temperature of chat requests (not sent to Anthropic, whose newer models refuse it). */
  temperature: number;
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

const wholeNumber = (min: number, max: number, unit = "") => {
  const error = `must be a whole number${unit} from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

const modelName = z.string().trim().min(1).max(256, { error: "must be at most 256 characters" });

/** `Name=value,Other=value`. */
const headerList = z.string().transform((value, context) => {
  const headers: Record<string, string> = {};
  for (const pair of value.split(",")) {
    if (pair.trim() === "") {
      continue;
    }
    const at = pair.indexOf("=");
    const name = at > 0 ? pair.slice(0, at).trim() : "";
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) {
      context.addIssue({ code: "custom", message: "must be a comma-separated list of Name=value pairs" });
      return z.NEVER;
    }
    headers[name] = pair.slice(at + 1).trim();
  }
  return headers;
});

/** The LLM settings' variables, their defaults, checks and meanings (rendered in the README). */
export const llmEnvironmentVariables = z.object({
  DBMON_LLM_PROVIDER: z
    .enum(chatProviders, { error: `must be one of ${chatProviders.join(", ")}` })
    .optional()
    .describe(`Default chat provider: ${chatProviders.join(", ")}; unset: chat and AI features off`),
  DBMON_LLM_MODEL: modelName.optional().describe("Chat model (required with DBMON_LLM_PROVIDER)"),
  DBMON_LLM_BASE_URL: httpUrl.optional().describe("Base URL of the default chat provider"),
  DBMON_LLM_TIMEOUT_SECONDS: wholeNumber(1, 3600, " of seconds")
    .default(120)
    .describe("Time allowed for one request to a provider, a streamed answer's whole stream included"),
  DBMON_LLM_MAX_RETRIES: wholeNumber(0, 10).default(2).describe("Retries of a failed provider request"),
  DBMON_LLM_MAX_TOKENS: wholeNumber(1, 1_000_000)
    .default(4096)
    .describe("Upper bound on a chat answer's tokens"),
  DBMON_LLM_TEMPERATURE: z.coerce
    .number({ error: "must be a number from 0 to 2" })
    .min(0, { error: "must be a number from 0 to 2" })
    .max(2, { error: "must be a number from 0 to 2" })
    .default(0.7)
    .describe("Sampling temperature of chat requests (not sent to Anthropic)"),
  DBMON_LLM_EMBED_PROVIDER: z
    .enum(embedProviders, { error: `must be one of ${embedProviders.join(", ")}` })
    .optional()
    .describe(`Embeddings provider: ${embedProviders.join(", ")}`),
  DBMON_LLM_EMBED_MODEL: modelName.optional().describe("Embeddings model; unset: the provider's default"),
  DBMON_LLM_MULTIMODAL_PROVIDER: z
    .enum(multimodalProviders, { error: `must be ${multimodalProviders.join(", ")}` })
    .optional()
    .describe(`Multimodal embeddings provider: ${multimodalProviders.join(", ")}`),
  DBMON_LLM_MULTIMODAL_MODEL: modelName
    .optional()
    .describe("Multimodal embeddings model; unset: the provider's default"),
  DBMON_LLM_RERANK_PROVIDER: z
    .enum(rerankProviders, { error: `must be one of ${rerankProviders.join(", ")}` })
    .optional()
    .describe(`Rerank provider: ${rerankProviders.join(", ")}`),
  DBMON_LLM_RERANK_MODEL: modelName.optional().describe("Rerank model; unset: the provider's default"),
  DBMON_LLM_CUSTOM_HEADERS: headerList
    .optional()
    .describe("Extra headers for every provider, `Name=value,Name2=value2`"),
  ...Object.fromEntries(
    llmProviders.map((name) => [
      `DBMON_LLM_${name.toUpperCase()}_CUSTOM_HEADERS`,
      headerList.optional().describe(`Extra headers for ${name} only`),
    ]),
  ),
  ...Object.fromEntries(
    llmProviders.map((name) => [
      baseUrlVariables[name],
      httpUrl.optional().describe(`Base URL of ${name} (default ${defaultBaseUrls[name]})`),
    ]),
  ),
  ...Object.fromEntries(
    Object.entries(apiKeyVariables).map(([name, variable]) => [
      variable,
      z.string().optional().describe(`API key of ${name}`),
    ]),
  ),
});

type Environment = Record<string, unknown> & z.infer<typeof llmEnvironmentVariables>;

/**
 * Reads the LLM settings from the environment: `null` when no capability (chat, embeddings,
 * multimodal embeddings, reranking) is configured, otherwise a checked configuration. The error
 * names the first wrong variable and never its value.
 */
export function loadLlmConfig(env: NodeJS.ProcessEnv = process.env): LlmConfig | null {
  const values = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const parsed = llmEnvironmentVariables.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(String(issue?.path[0] ?? "environment"), issue?.message ?? "is invalid");
  }
  const e = parsed.data as Environment;
  if (e.DBMON_LLM_PROVIDER && !e.DBMON_LLM_MODEL) {
    throw invalid("DBMON_LLM_MODEL", "is required when DBMON_LLM_PROVIDER is set");
  }
  const chat = e.DBMON_LLM_PROVIDER
    ? { provider: e.DBMON_LLM_PROVIDER, model: e.DBMON_LLM_MODEL as string }
    : null;
  const capability = <P extends LlmProviderName>(
    provider: P | undefined,
    model: string | undefined,
    defaults: Partial<Record<P, string>>,
  ): Capability<P> | null => (provider ? { provider, model: model ?? (defaults[provider] as string) } : null);
  const embed = capability(e.DBMON_LLM_EMBED_PROVIDER, e.DBMON_LLM_EMBED_MODEL, defaultModels.embed);
  const multimodal = capability(
    e.DBMON_LLM_MULTIMODAL_PROVIDER,
    e.DBMON_LLM_MULTIMODAL_MODEL,
    defaultModels.multimodal,
  );
  const rerank = capability(e.DBMON_LLM_RERANK_PROVIDER, e.DBMON_LLM_RERANK_MODEL, defaultModels.rerank);

  const used = new Map<LlmProviderName, string>();
  for (const [variable, setting] of [
    ["DBMON_LLM_PROVIDER", chat],
    ["DBMON_LLM_EMBED_PROVIDER", embed],
    ["DBMON_LLM_MULTIMODAL_PROVIDER", multimodal],
    ["DBMON_LLM_RERANK_PROVIDER", rerank],
  ] as const) {
    if (setting && !used.has(setting.provider)) {
      used.set(setting.provider, variable);
    }
  }

  const providers: ProviderConfig[] = [];
  for (const name of llmProviders) {
    const ownUrl = e[baseUrlVariables[name]] as string | undefined;
    const baseUrl = ownUrl ?? (chat?.provider === name ? e.DBMON_LLM_BASE_URL : undefined);
    const key = name === "ollama" ? undefined : (e[apiKeyVariables[name]] as string | undefined);
    // A provider is configured by its key; Ollama and OpenAI-compatible servers by an address too.
    const configured =
      key !== undefined ||
      (name === "ollama" && (baseUrl !== undefined || used.has(name))) ||
      (name === "openai" && baseUrl !== undefined);
    if (!configured) {
      const variable = used.get(name);
      if (variable) {
        const needed = name === "ollama" ? baseUrlVariables.ollama : apiKeyVariables[name];
        throw invalid(needed, `is required when ${variable} is ${name}`);
      }
      continue;
    }
    providers.push({
      name,
      baseUrl: normaliseBaseUrl(name, baseUrl ?? defaultBaseUrls[name]),
      apiKey: key === undefined ? undefined : new Secret(key),
      headers: secretHeaders({
        ...(e.DBMON_LLM_CUSTOM_HEADERS as Record<string, string> | undefined),
        ...(e[`DBMON_LLM_${name.toUpperCase()}_CUSTOM_HEADERS`] as Record<string, string> | undefined),
      }),
      timeoutMs: e.DBMON_LLM_TIMEOUT_SECONDS * 1000,
      maxRetries: e.DBMON_LLM_MAX_RETRIES,
    });
  }
  if (!chat && !embed && !multimodal && !rerank) {
    return null;
  }
  return {
    providers,
    chat,
    embed,
    multimodal,
    rerank,
    maxTokens: e.DBMON_LLM_MAX_TOKENS,
    temperature: e.DBMON_LLM_TEMPERATURE,
  };
}

function invalid(variable: string, problem: string): LlmConfigError {
  return new LlmConfigError(`Invalid LLM configuration: ${variable} ${problem}`);
}

function secretHeaders(headers: Record<string, string>): Record<string, Secret> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, new Secret(value)]));
}

/**
 * Accepts a base URL written either way round: the Anthropic SDK and Ollama's own API add their
 * paths to the server's address, while the OpenAI-compatible servers are addressed at `/v1`.
 */
function normaliseBaseUrl(provider: LlmProviderName, baseUrl: string): string {
  const trimmed = baseUrl.replace(/\/+$/, "");
  if (provider === "anthropic" || provider === "ollama" || provider === "cohere") {
    return trimmed.replace(/\/v[12]$/, "");
  }
  return trimmed;
}
