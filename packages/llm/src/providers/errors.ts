import { LlmError } from "../client.js";
import type { LlmProviderName } from "../config.js";
import type { Secret } from "../secret.js";

/** Both SDKs are generated from the same template: these are the error classes they share. */
export interface SdkErrorClasses {
  APIError: abstract new (...args: never[]) => Error & { status: number | undefined; error: unknown };
  APIUserAbortError: abstract new (...args: never[]) => Error;
  APIConnectionTimeoutError: abstract new (...args: never[]) => Error;
}

const MAX_DETAIL_LENGTH = 300;

/**
 * Turns whatever an SDK threw into an LlmError whose message carries the provider's own words but
 * never the API key, the base URL or the request.
 */
export function toLlmError(
  error: unknown,
  provider: LlmProviderName,
  apiKey: Secret | undefined,
  sdk: SdkErrorClasses,
): LlmError {
  const clean = (text: string) => {
    const scrubbed = apiKey ? apiKey.scrub(text) : text;
    return scrubbed.length > MAX_DETAIL_LENGTH ? `${scrubbed.slice(0, MAX_DETAIL_LENGTH)}…` : scrubbed;
  };
  if (error instanceof sdk.APIUserAbortError) {
    return new LlmError(`${provider} request was aborted`, provider, undefined);
  }
  if (error instanceof sdk.APIConnectionTimeoutError) {
    return new LlmError(`${provider} request timed out`, provider, undefined);
  }
  if (error instanceof sdk.APIError) {
    if (error.status === undefined) {
      return new LlmError(`${provider} could not be reached`, provider, undefined);
    }
    const detail = providerMessage(error.error);
    return new LlmError(
      `${provider} answered HTTP ${error.status}${detail ? `: ${clean(detail)}` : ""}`,
      provider,
      error.status,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError(`${provider} request failed: ${clean(message)}`, provider, undefined);
}

/** The message inside an error body: `{error: {message}}` (Anthropic) or `{message}` (OpenAI). */
function providerMessage(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) {
    return undefined;
  }
  const record = body as { message?: unknown; error?: { message?: unknown } };
  const message = record.message ?? record.error?.message;
  return typeof message === "string" && message.trim() !== "" ? message.trim() : undefined;
}
