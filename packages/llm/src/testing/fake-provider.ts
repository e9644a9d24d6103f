import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A tool call the fake model makes. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  input: Record<string, unknown>;
}

/** What the fake provider answers to the next chat request (any wire format). */
export type ScriptedAnswer =
  | {
      text?: string;
      toolCalls?: ScriptedToolCall[];
      inputTokens?: number;
      outputTokens?: number;
      /** Wait before answering at all. */
      delayMs?: number;
      /** Streamed: the pieces of `text` in order (default: word by word). */
      chunks?: string[];
      /** Streamed: the pause between two pieces. */
      chunkDelayMs?: number;
      /** Streamed: after this many pieces, an error event ends the stream. */
      failAfterChunks?: number;
    }
  | { status: number; message: string; delayMs?: number };

export type WireFormat = "anthropic" | "openai" | "ollama" | "voyage" | "cohere";

export interface RecordedRequest {
  /** Which wire format the request used. */
  api: WireFormat;
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
  /** Model ids listed by the model lists (/v1/models, /api/tags). */
  models?: string[];
}

export interface FakeProvider {
  /** Origin of the server: the base URL for the Anthropic, Ollama and Cohere SDKs. */
  anthropicBaseUrl: string;
  /** Base URL for the OpenAI and Voyage SDKs (`<origin>/v1`). */
  openaiBaseUrl: string;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Streamed answers whose client went away before the end. */
  readonly abandonedStreams: number;
  /** Queues answers for the next chat requests, in order. */
  script(...answers: ScriptedAnswer[]): void;
  /**
   * Answers every chat request that finds no scripted answer with this one, until `reset`: for a
   * benchmark, whose requests must not depend on how many other chat requests (the service's own)
   * reach the provider meanwhile.
   */
  answerAll(answer: ScriptedAnswer): void;
  /** The next request of any kind (embeddings, rerank, model lists too) fails with this. */
  failNext(status: number, message: string): void;
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

const EMBEDDING_DIMENSIONS = 8;

/**
 * A local stand-in for the providers' APIs, faithful enough for their real SDKs: Anthropic Messages
 * (POST /v1/messages, streaming too, GET /v1/models), OpenAI Chat Completions (POST
 * /v1/chat/completions, streaming too, GET /v1/models, POST /v1/embeddings), Ollama (POST /api/chat,
 * streaming too, POST /api/embed, GET /api/tags), Voyage (POST /v1/embeddings,
 * /v1/multimodalembeddings, /v1/rerank) and Cohere (POST /v2/rerank, GET /v1/models).
 * Chat requests are answered from a script (or by the standing answer of `answerAll`); with nothing
 * scripted they get a 500, so a test that calls the provider unexpectedly fails visibly. Embeddings and rerankings are computed from the
 * input, deterministically.
 */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  let answers: ScriptedAnswer[] = [];
  let standingAnswer: ScriptedAnswer | undefined;
  let failures: { status: number; message: string }[] = [];
  let sequence = 0;
  let abandonedStreams = 0;
  const models = options.models ?? [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const api = wireFormatOf(req, path);
    const body = raw === "" ? null : parseJson(raw);
    requests.push({ api, method: req.method ?? "", path, headers: flattenHeaders(req), body });

    if (options.apiKey !== undefined && presentedKey(req) !== options.apiKey) {
      return sendError(res, api, 401, "invalid x-api-key");
    }
    if (body === undefined) {
      return sendError(res, api, 400, "the body is not valid JSON");
    }
    const failure = failures.shift();
    if (failure) {
      return sendError(res, api, failure.status, failure.message);
    }
    const request = (body ?? {}) as Record<string, unknown>;
    const route = `${req.method} ${path}`;
    switch (route) {
      case "GET /v1/models":
        return sendJson(res, 200, modelList(api, models));
      case "GET /api/tags":
        return sendJson(res, 200, {
          models: models.map((name) => ({
            name,
            model: name,
            modified_at: new Date(0).toISOString(),
            size: 1,
          })),
        });
      case "POST /v1/embeddings":
      case "POST /api/embed":
      case "POST /v1/multimodalembeddings":
        return sendJson(res, 200, embeddingsAnswer(api, path, request));
      case "POST /v1/rerank":
      case "POST /v2/rerank":
        return sendJson(res, 200, rerankAnswer(api, request));
      case "POST /v1/messages":
      case "POST /v1/chat/completions":
      case "POST /api/chat":
        break;
      default:
        return sendError(res, api, 404, `no route for ${route}`);
    }
    const invalid = invalidChatRequest(api, req, request);
    if (invalid) {
      return sendError(res, api, 400, invalid);
    }
    const answer = answers.shift() ?? standingAnswer;
    if (!answer) {
      return sendError(res, api, 500, "the fake provider has no scripted answer");
    }
    if (answer.delayMs) {
      await sleep(answer.delayMs);
    }
    if ("status" in answer) {
      return sendError(res, api, answer.status, answer.message);
    }
    sequence += 1;
    const reply = { ...answer, sequence, model: String(request.model) };
    // Ollama streams unless told not to; the others only when asked.
    const streamed = api === "ollama" ? request.stream !== false : request.stream === true;
    if (!streamed) {
      return sendJson(res, 200, wholeAnswer(api, reply));
    }
    let finished = false;
    res.on("close", () => {
      if (!finished) {
        abandonedStreams += 1;
      }
    });
    await streamAnswer(api, res, reply, request);
    finished = true;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendError(res, "openai", 500, String(error)));
  });

  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    anthropicBaseUrl: origin,
    openaiBaseUrl: `${origin}/v1`,
    requests,
    get abandonedStreams() {
      return abandonedStreams;
    },
    script(...next) {
      answers.push(...next);
    },
    answerAll(answer) {
      standingAnswer = answer;
    },
    failNext(status, message) {
      failures.push({ status, message });
    },
    reset() {
      requests.length = 0;
      answers = [];
      standingAnswer = undefined;
      failures = [];
      abandonedStreams = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((closed, failed) => server.close((error) => (error ? failed(error) : closed())));
    },
  };
}

function wireFormatOf(req: IncomingMessage, path: string): WireFormat {
  const sdk = String(req.headers["x-fern-sdk-name"] ?? "");
  if (req.headers["anthropic-version"] !== undefined || path === "/v1/messages") {
    return "anthropic";
  }
  if (path.startsWith("/api/")) {
    return "ollama";
  }
  if (sdk.includes("cohere") || path === "/v2/rerank") {
    return "cohere";
  }
  if (sdk.includes("voyage") || path === "/v1/multimodalembeddings" || path === "/v1/rerank") {
    return "voyage";
  }
  return "openai";
}

/** The checks of the real APIs that a client of ours could fail. */
function invalidChatRequest(
  api: WireFormat,
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
  return undefined;
}

type Reply = Exclude<ScriptedAnswer, { status: number }> & { sequence: number; model: string };

function toolCallsOf(reply: Reply): Required<ScriptedToolCall>[] {
  return (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? `toolu_fake_${reply.sequence}_${index}`,
    name: call.name,
    input: call.input,
  }));
}

function wholeAnswer(api: WireFormat, reply: Reply): unknown {
  const text = reply.text ?? "";
  const input = reply.inputTokens ?? 10;
  const output = reply.outputTokens ?? 20;
  const calls = toolCallsOf(reply);
  switch (api) {
    case "anthropic":
      return {
        id: `msg_fake_${reply.sequence}`,
        type: "message",
        role: "assistant",
        model: reply.model,
        content: [
          ...(text ? [{ type: "text", text, citations: null }] : []),
          ...calls.map((call) => ({ type: "tool_use", ...call })),
        ],
        stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: anthropicUsage(input, output),
      };
    case "ollama":
      return {
        model: reply.model,
        created_at: new Date().toISOString(),
        message: {
          role: "assistant",
          content: text,
          ...(calls.length > 0
            ? { tool_calls: calls.map((call) => ({ function: { name: call.name, arguments: call.input } })) }
            : {}),
        },
        done: true,
        done_reason: "stop",
        prompt_eval_count: input,
        eval_count: output,
      };
    default:
      return {
        id: `chatcmpl-fake-${reply.sequence}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: reply.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: text || null,
              refusal: null,
              ...(calls.length > 0
                ? {
                    tool_calls: calls.map((call) => ({
                      id: call.id,
                      type: "function",
                      function: { name: call.name, arguments: JSON.stringify(call.input) },
                    })),
                  }
                : {}),
            },
            finish_reason: calls.length > 0 ? "tool_calls" : "stop",
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      };
  }
}

function anthropicUsage(input: number, output: number) {
  return {
    input_tokens: input,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    service_tier: "standard",
  };
}

/** Writes a streamed answer in the wire format's framing: SSE events, SSE data lines or NDJSON. */
async function streamAnswer(
  api: WireFormat,
  res: ServerResponse,
  reply: Reply,
  request: Record<string, unknown>,
): Promise<void> {
  const pieces = reply.chunks ?? (reply.text ?? "").match(/\S+\s*|\s+/g) ?? [];
  const calls = toolCallsOf(reply);
  const input = reply.inputTokens ?? 10;
  const output = reply.outputTokens ?? 20;
  const created = Math.floor(Date.now() / 1000);
  res.writeHead(200, {
    "content-type": api === "ollama" ? "application/x-ndjson" : "text/event-stream",
    "cache-control": "no-cache",
    "request-id": `req_fake_${reply.sequence}`,
  });
  const write = (data: unknown, event?: string) => {
    if (res.destroyed) {
      return;
    }
    if (api === "ollama") {
      res.write(`${JSON.stringify(data)}\n`);
    } else {
      res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
    }
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: `chatcmpl-fake-${reply.sequence}`,
    object: "chat.completion.chunk",
    created,
    model: reply.model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const ollamaPart = (message: Record<string, unknown>, done = false) => ({
    model: reply.model,
    created_at: new Date().toISOString(),
    message: { role: "assistant", content: "", ...message },
    done,
    ...(done ? { done_reason: "stop", prompt_eval_count: input, eval_count: output } : {}),
  });

  if (api === "anthropic") {
    write(
      {
        type: "message_start",
        message: {
          id: `msg_fake_${reply.sequence}`,
          type: "message",
          role: "assistant",
          model: reply.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: anthropicUsage(input, 1),
        },
      },
      "message_start",
    );
    write(
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      "content_block_start",
    );
  }

  for (const [index, piece] of pieces.entries()) {
    if (reply.failAfterChunks !== undefined && index >= reply.failAfterChunks) {
      if (api === "anthropic") {
        write({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }, "error");
      } else if (api === "ollama") {
        write({ error: "model runner has unexpectedly stopped" });
      } else {
        write({
          error: { message: "The server had an error while processing your request.", type: "server_error" },
        });
      }
      res.end();
      return;
    }
    if (index > 0 && reply.chunkDelayMs) {
      await sleep(reply.chunkDelayMs);
    }
    if (res.destroyed) {
      return;
    }
    if (api === "anthropic") {
      write(
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } },
        "content_block_delta",
      );
    } else if (api === "ollama") {
      write(ollamaPart({ content: piece }));
    } else {
      write(chunk(index === 0 ? { role: "assistant", content: piece } : { content: piece }));
    }
  }

  if (api === "anthropic") {
    write({ type: "content_block_stop", index: 0 }, "content_block_stop");
    for (const [offset, call] of calls.entries()) {
      const index = offset + 1;
      const json = JSON.stringify(call.input);
      write(
        {
          type: "content_block_start",
          index,
          content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
        },
        "content_block_start",
      );
      for (const part of [json.slice(0, json.length >> 1), json.slice(json.length >> 1)]) {
        write(
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: part } },
          "content_block_delta",
        );
      }
      write({ type: "content_block_stop", index }, "content_block_stop");
    }
    write(
      {
        type: "message_delta",
        delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: output },
      },
      "message_delta",
    );
    write({ type: "message_stop" }, "message_stop");
  } else if (api === "ollama") {
    if (calls.length > 0) {
      write(
        ollamaPart({
          tool_calls: calls.map((call) => ({ function: { name: call.name, arguments: call.input } })),
        }),
      );
    }
    write(ollamaPart({}, true));
  } else {
    for (const [index, call] of calls.entries()) {
      const json = JSON.stringify(call.input);
      write(
        chunk({
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        }),
      );
      write(chunk({ tool_calls: [{ index, function: { arguments: json } }] }));
    }
    write(chunk({}, calls.length > 0 ? "tool_calls" : "stop"));
    const options = request.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage) {
      write({
        ...chunk({}),
        choices: [],
        usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output },
      });
    }
    res.write("data: [DONE]\n\n");
  }
  res.end();
}

function modelList(api: WireFormat, models: string[]): unknown {
  if (api === "anthropic") {
    return {
      data: models.map((id) => ({
        type: "model",
        id,
        display_name: id,
        created_at: new Date(0).toISOString(),
      })),
      has_more: false,
      first_id: models[0] ?? null,
      last_id: models.at(-1) ?? null,
    };
  }
  if (api === "cohere") {
    return { models: models.map((name) => ({ name, endpoints: ["rerank"], finetuned: false })) };
  }
  return {
    object: "list",
    data: models.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })),
  };
}

/** A fixed vector per text: the same input always embeds the same. */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  for (let i = 0; i < text.length; i++) {
    const slot = i % EMBEDDING_DIMENSIONS;
    vector[slot] = ((vector[slot] ?? 0) * 31 + text.charCodeAt(i)) % 1000;
  }
  return vector.map((value) => value / 1000);
}

function embeddingsAnswer(api: WireFormat, path: string, request: Record<string, unknown>): unknown {
  const texts =
    path === "/v1/multimodalembeddings"
      ? ((request.inputs ?? []) as { content?: Record<string, string>[] }[]).map((input) =>
          (input.content ?? [])
            .map((part) => part.text ?? part.image_url ?? part.image_base64 ?? "")
            .join(" "),
        )
      : typeof request.input === "string"
        ? [request.input]
        : ((request.input ?? []) as string[]);
  const vectors = texts.map(fakeEmbedding);
  const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
  if (api === "ollama") {
    return {
      model: request.model,
      embeddings: vectors,
      total_duration: 1,
      load_duration: 0,
      prompt_eval_count: tokens,
    };
  }
  const base64 = request.encoding_format === "base64";
  return {
    object: "list",
    data: vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector,
    })),
    model: request.model,
    usage: api === "voyage" ? { total_tokens: tokens } : { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** Scores each document by the share of the query's words it contains. */
function rerankAnswer(api: WireFormat, request: Record<string, unknown>): unknown {
  const words = String(request.query ?? "")
    .toLowerCase()
    .split(/\W+/)
    .filter(Boolean);
  const documents = (request.documents ?? []) as string[];
  const limit = Number(api === "cohere" ? request.top_n : request.top_k) || documents.length;
  const ranked = documents
    .map((document, index) => {
      const text = document.toLowerCase();
      const score =
        words.length === 0 ? 0 : words.filter((word) => text.includes(word)).length / words.length;
      return { index, score, document };
    })
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit);
  if (api === "cohere") {
    return {
      id: "rerank-fake",
      results: ranked.map((item) => ({ index: item.index, relevance_score: item.score })),
      meta: { api_version: { version: "2" }, billed_units: { search_units: 1 } },
    };
  }
  return {
    object: "list",
    data: ranked.map((item) => ({
      index: item.index,
      relevance_score: item.score,
      ...(request.return_documents ? { document: item.document } : {}),
    })),
    model: request.model,
    usage: { total_tokens: documents.join(" ").length >> 2 },
  };
}

function sendError(res: ServerResponse, api: WireFormat, status: number, message: string): void {
  const body =
    api === "anthropic"
      ? { type: "error", error: { type: anthropicErrorTypes[status] ?? "api_error", message } }
      : api === "ollama"
        ? { error: message }
        : api === "voyage"
          ? { detail: message }
          : api === "cohere"
            ? { message }
            : {
                error: {
                  message,
                  type: status >= 500 ? "server_error" : "invalid_request_error",
                  param: null,
                  code: null,
                },
              };
  sendJson(res, status, body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.headersSent) {
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

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
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
