import { LlmError } from "../client.js";
import type { LlmProviderName, ProviderConfig } from "../config.js";

/** What went wrong in a provider call, whichever SDK reported it. */
export type Failure =
  | { kind: "aborted" }
  | { kind: "timeout" }
  | { kind: "unreachable" }
  | { kind: "status"; status: number; detail: string | undefined }
  | { kind: "other"; message: string };

/** Anthropic's and OpenAI's SDKs are generated from the same template: these are the error classes they share. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status: number | undefined; error: unknown };
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

const MAX_DETAIL_LENGTH = 300;

/**
 * Turns a failure into an LlmError whose message carries the provider's own words but never the
 * API key, a custom header's value, the base URL or the request.
 */
export function toLlmError(failure: Failure, config: ProviderConfig): LlmError {
  const provider: LlmProviderName = config.name;
  const secrets = [config.apiKey, ...Object.values(config.headers)].filter((secret) => secret !== undefined);
  const clean = (text: string) => {
    const scrubbed = secrets.reduce((result, secret) => secret.scrub(result), text);
    return scrubbed.length > MAX_DETAIL_LENGTH ? `${scrubbed.slice(0, MAX_DETAIL_LENGTH)}…` : scrubbed;
  };
  switch (failure.kind) {
    case "aborted":
      return new LlmError(`${provider} request was aborted`, provider, undefined);
    case "timeout":
      return new LlmError(`${provider} request timed out`, provider, undefined);
    case "unreachable":
      return new LlmError(`${provider} could not be reached`, provider, undefined);
    case "status":
      return new LlmError(
        `${provider} answered HTTP ${failure.status}${failure.detail ? `: ${clean(failure.detail)}` : ""}`,
        provider,
        failure.status,
      );
    case "other":
      return new LlmError(`${provider} request failed: ${clean(failure.message)}`, provider, undefined);
  }
}

/** What an Anthropic or OpenAI SDK error means. */
export function classifySdkError(error: unknown, sdk: SdkErrorClasses): Failure {
  if (error instanceof sdk.APIUserAbortError) {
    return { kind: "aborted" };
  }
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return { kind: "timeout" };
  }
  if (error instanceof sdk.APIError) {
    // A mid-stream error event has a body but no status.
    if (error.status === undefined) {
      const detail = providerMessage(error.error);
      return detail ? { kind: "other", message: detail } : { kind: "unreachable" };
    }
    return { kind: "status", status: error.status, detail: providerMessage(error.error) };
  }
  return otherFailure(error);
}

/** An error no SDK class describes: an abort of our own signal, a network failure, a bug. */
export function otherFailure(error: unknown): Failure {
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return { kind: error.name === "AbortError" ? "aborted" : "timeout" };
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (error instanceof TypeError && (error.message === "fetch failed" || typeof cause?.code === "string")) {
    return { kind: "unreachable" };
  }
  return { kind: "other", message: error instanceof Error ? error.message : String(error) };
}

/**
 * The message inside an error body: `{error: {message}}` (Anthropic, OpenAI), `{message}`,
 * `{error: "..."}` (Ollama) or `{detail}` (Voyage).
 */
export function providerMessage(body: unknown): string | undefined {
  if (typeof body === "string") {
    return body.trim() || undefined;
  }
  if (typeof body !== "object" || body === null) {
    return undefined;
  }
  const record = body as { message?: unknown; detail?: unknown; error?: unknown };
  const nested =
    typeof record.error === "object" && record.error !== null
      ? (record.error as { message?: unknown }).message
      : record.error;
  const message = record.message ?? nested ?? record.detail;
  return typeof message === "string" && message.trim() !== "" ? message.trim() : undefined;
}

/** The custom headers of a provider, as the SDKs take them. */
export function revealHeaders(config: ProviderConfig): Record<string, string> {
  return Object.fromEntries(Object.entries(config.headers).map(([name, value]) => [name, value.reveal()]));
}

/** Runs a provider call and reports any failure as an LlmError. */
export async function guardCall<T>(
  config: ProviderConfig,
  classify: (error: unknown) => Failure,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toLlmError(classify(error), config);
  }
}

/**
 * Reads a provider's stream (`read`), reporting any failure as an LlmError. The SDKs end an aborted
 * stream quietly: that is an abort, never to be taken for a whole answer.
 */
export async function* guardStream<T>(
  config: ProviderConfig,
  classify: (error: unknown) => Failure,
  signal: AbortSignal | undefined,
  read: () => AsyncGenerator<T>,
): AsyncGenerator<T> {
  try {
    yield* read();
  } catch (error) {
    throw toLlmError(classify(error), config);
  }
  if (signal?.aborted) {
    throw toLlmError({ kind: "aborted" }, config);
  }
}

/** Parses tool-call arguments a provider sent as JSON text; anything else becomes `{}`. */
export function parseToolInput(text: string | undefined): Record<string, unknown> {
  if (!text) {
    return {};
  }
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
