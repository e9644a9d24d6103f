import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the fake provider answers to the next completion request. */
export type ScriptedAnswer =
  | { text: string; inputTokens?: number; outputTokens?: number; delayMs?: number }
  | { status: number; message: string; delayMs?: number };

export interface RecordedRequest {
  /** Which wire format the request used. */
  api: "anthropic" | "openai";
  method: string;
  path: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The parsed JSON body; `null` for a request without one. */
  body: unknown;
}

export interface FakeProviderOptions {
  /** When set, requests must carry it (`x-api-key` or `Authorization: Bearer`) or get a 401. */
  apiKey?: string;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
}

export interface FakeProvider {
  /** Base URL for the Anthropic SDK (it adds `/v1`). */
  anthropicBaseUrl: string;
  /** Base URL for the OpenAI SDK. */
  openaiBaseUrl: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Queues answers for the next completion requests, in order. */
  script(...answers: ScriptedAnswer[]): void;
  /** Forgets the recorded requests and any answers not yet given. */
  reset(): void;
  close(): Promise<void>;
}

/** Error `type` of the Anthropic error body for a status, as the real API names them. */
const anthropicErrorTypes: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/**
 * A local stand-in for the Anthropic Messages API (POST /v1/messages) and the OpenAI Chat
 * Completions API (POST /v1/chat/completions, GET /v1/models), faithful enough for the real SDKs.
 * It answers completions from a script; with nothing scripted it answers 500, so a test that calls
 * the provider unexpectedly fails visibly.
 */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  let answers: ScriptedAnswer[] = [];
  let sequence = 0;

  const server = createServer((req, res) => {
    readBody(req)
      .then(async (raw) => {
        const path = new URL(req.url ?? "/", "http://fake").pathname;
        const api =
          req.headers["anthropic-version"] !== undefined || path === "/v1/messages" ? "anthropic" : "openai";
        const body = raw === "" ? null : parseJson(raw);
        requests.push({ api, method: req.method ?? "", path, headers: flattenHeaders(req), body });

        if (options.apiKey !== undefined && presentedKey(req) !== options.apiKey) {
          return sendError(res, api, 401, "invalid x-api-key");
        }
        if (body === undefined) {
          return sendError(res, api, 400, "the body is not valid JSON");
        }
        if (req.method === "GET" && path === "/v1/models") {
          return sendJson(res, 200, {
            object: "list",
            data: (options.models ?? []).map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
          });
        }
        const completion = path === "/v1/messages" || path === "/v1/chat/completions";
        if (req.method !== "POST" || !completion) {
          return sendError(res, api, 404, `no route for ${req.method} ${path}`);
        }
        const request = (body ?? {}) as Record<string, unknown>;
        const invalid = invalidRequest(api, req, request);
        if (invalid) {
          return sendError(res, api, 400, invalid);
        }
        const answer = answers.shift();
        if (!answer) {
          return sendError(res, api, 500, "the fake provider has no scripted answer");
        }
        if (answer.delayMs) {
          await new Promise((done) => setTimeout(done, answer.delayMs));
        }
        if ("status" in answer) {
          return sendError(res, api, answer.status, answer.message);
        }
        sequence += 1;
        const model = String(request.model);
        const input = answer.inputTokens ?? 10;
        const output = answer.outputTokens ?? 20;
        return sendJson(
          res,
          200,
          api === "anthropic"
            ? anthropicMessage(sequence, model, answer.text, input, output)
            : chatCompletion(sequence, model, answer.text, input, output),
        );
      })
      .catch((error: unknown) => {
        sendError(res, "openai", 500, String(error));
      });
  });

  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    anthropicBaseUrl: origin,
    openaiBaseUrl: `${origin}/v1`,
    requests,
    script(...next) {
      answers.push(...next);
    },
    reset() {
      requests.length = 0;
      answers = [];
    },
    close() {
      server.closeAllConnections();
      return new Promise((closed, failed) => server.close((error) => (error ? failed(error) : closed())));
    },
  };
}

/** The checks of the real APIs that a client of ours could fail. */
function invalidRequest(
  api: "anthropic" | "openai",
  req: IncomingMessage,
  request: Record<string, unknown>,
): string | undefined {
  if (api === "anthropic" && req.headers["anthropic-version"] === undefined) {
    return "anthropic-version: header is required";
  }
  if (typeof request.model !== "string" || request.model === "") {
    return "model: field required";
  }
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    return "messages: field required";
  }
  if (api === "anthropic" && typeof request.max_tokens !== "number") {
    return "max_tokens: field required";
  }
  if (request.stream === true) {
    return "the fake provider does not stream";
  }
  return undefined;
}

function anthropicMessage(sequence: number, model: string, text: string, input: number, output: number) {
  return {
    id: `msg_fake_${sequence}`,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text, citations: null }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: input,
      output_tokens: output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: "standard",
    },
  };
}

function chatCompletion(sequence: number, model: string, text: string, input: number, output: number) {
  return {
    id: `chatcmpl-fake-${sequence}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text, refusal: null },
        finish_reason: "stop",
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
  };
}

function sendError(res: ServerResponse, api: "anthropic" | "openai", status: number, message: string): void {
  sendJson(
    res,
    status,
    api === "anthropic"
      ? { type: "error", error: { type: anthropicErrorTypes[status] ?? "api_error", message } }
      : {
          error: {
            message,
            type: status >= 500 ? "server_error" : "invalid_request_error",
            param: null,
            code: null,
          },
        },
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) {
    return;
  }
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(payload),
    "request-id": `req_fake_${Date.now()}`,
    "x-request-id": `req_fake_${Date.now()}`,
  });
  res.end(payload);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** `undefined` when the text is not JSON. */
function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers["x-api-key"];
  if (typeof header === "string") {
    return header;
  }
  return req.headers.authorization?.replace(/^Bearer /, "");
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.join(", ") : (value ?? ""),
    ]),
  );
}
