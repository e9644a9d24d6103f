import {
  apiError,
  type DbmonApiError,
  DbmonError,
  DbmonNetworkError,
  DbmonTimeoutError,
  DbmonValidationError,
  UnauthorizedError,
  type ValidationIssue,
} from "./errors.js";
import { login as loginEndpoint, logout as logoutEndpoint } from "./generated/endpoints.js";
import type { LoginParams, LoginResult, LogoutResult } from "./generated/types.js";
import { type EventStream, readEvents, type StreamOptions } from "./stream.js";
import type { Endpoint, ParamsOf, ResultOf, RouteLike } from "./types.js";

/** `throw`: methods return the body and throw `DbmonError`s; `fields`: they return `{ data, error }`. */
export type ResultStyle = "throw" | "fields";

/** What a call gives in `fields` style: the body or the error, never both. */
export type Fields<T> =
  | { data: T; error: undefined; response: Response }
  | { data: undefined; error: DbmonApiError | DbmonError; response: Response | undefined };

/** What a call answering `T` resolves to in a style. */
export type Result<T, S extends ResultStyle> = S extends "fields" ? Fields<T> : T;

/** A credential: a token, or a function called before every request (for refreshed tokens). */
export type TokenSource = string | (() => string | null | undefined | Promise<string | null | undefined>);

export interface RetryOptions {
  /** Retries after the first attempt (default 2; 0 turns retrying off). */
  retries: number;
  /** First backoff in milliseconds, doubled each retry, with jitter (default 250). */
  baseDelay: number;
  /** Longest wait between attempts, `Retry-After` included (default 10 000). */
  maxDelay: number;
  /** Statuses retried (default 429, 502, 503, 504). Only idempotent methods are ever retried. */
  statuses: readonly number[];
}

/**
 * Checks a successful JSON body against its operation's response schema and gives the problems
 * found (none when it is valid). `contractValidator()` of `@dbmon/client/validate` is one.
 */
export type ResponseValidator = (
  route: RouteLike,
  status: number,
  body: unknown,
) => Promise<readonly ValidationIssue[]>;

export interface ClientOptions<S extends ResultStyle = "throw"> {
  /**
   * Where dbmon is, e.g. `http://127.0.0.1:8080`, or `https://example.com/dbmon` behind a reverse
   * proxy that serves it under a path (the path is kept). In a browser it may be relative (`/dbmon`).
   */
  baseUrl: string;
  /** A session or service token, or a function returning one, sent as `Authorization: Bearer`. */
  token?: TokenSource;
  /**
   * `"include"` for browser cookie mode: the session cookie `login()` sets is sent, no token needed
   * (dbmon must allow the page's origin with `DBMON_CORS_ORIGIN`).
   */
  credentials?: "include" | "same-origin" | "omit";
  /** A fetch implementation; defaults to the global one. */
  fetch?: (request: Request) => Response | Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Milliseconds before an attempt is abandoned with `DbmonTimeoutError` (default 30 000; 0: none). */
  timeout?: number;
  /** Retries of idempotent requests on 429/502/503/504 and network errors; `false` turns them off. */
  retry?: Partial<RetryOptions> | false;
  /**
   * Called on a 401 (except from `login`). Return `true` after refreshing the credential to have
   * the request sent once more.
   */
  onUnauthorized?: (error: UnauthorizedError) => boolean | undefined | Promise<boolean | undefined>;
  /** `"fields"` for `{ data, error }` results instead of thrown errors. */
  responseStyle?: S;
  /**
   * Checks every JSON response body and throws `DbmonValidationError` when one does not match its
   * schema; pass `contractValidator()` from `@dbmon/client/validate` (it loads Zod only when used).
   */
  validate?: ResponseValidator;
}

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call. */
  timeout?: number;
  headers?: Record<string, string>;
  retry?: Partial<RetryOptions> | false;
}

/** A request split by where its parts go: `{ params, query, body }` (path, query string, JSON body). */
export type StructuredInput = {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
};

/** The arguments of a call of an endpoint: its parameters (when it takes any), then options. */
export type CallArgs<E> =
  ParamsOf<E> extends undefined
    ? [params?: undefined, options?: CallOptions]
    : object extends ParamsOf<E>
      ? [params?: ParamsOf<E>, options?: CallOptions]
      : [params: ParamsOf<E>, options?: CallOptions];

export interface DbmonClient<S extends ResultStyle = "throw"> {
  /** Calls an endpoint of this package with the parameters its method takes (`{ connection_id: 1 }`). */
  call<E extends Endpoint>(endpoint: E, ...args: CallArgs<E>): Promise<Result<ResultOf<E>, S>>;
  /**
   * Sends a request and gives its parsed JSON body (checked when the client validates) and the
   * response; errors are thrown in either style.
   */
  request(
    route: RouteLike,
    input?: StructuredInput,
    options?: CallOptions,
  ): Promise<{ data: unknown; response: Response }>;
  /** Sends a request and gives the successful `Response` (errors are thrown in either style). */
  send(
    route: RouteLike,
    input?: StructuredInput,
    options?: CallOptions & { accept?: string },
  ): Promise<Response>;
  /** Opens a server-sent event stream and iterates its events. */
  stream<E>(route: RouteLike, input?: StructuredInput, options?: StreamOptions): Promise<EventStream<E>>;
  /**
   * Logs in and keeps the session token for later calls (unless the client has its own token
   * source, or is in cookie mode, where the session cookie the answer sets is the credential);
   * answers what the API does, the token included.
   */
  login(credentials: LoginParams, options?: CallOptions): Promise<Result<LoginResult, S>>;
  /** Ends the session and forgets its token. */
  logout(options?: CallOptions): Promise<Result<LogoutResult, S>>;
}

const idempotent = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
const defaultRetry: RetryOptions = {
  retries: 2,
  baseDelay: 250,
  maxDelay: 10_000,
  statuses: [429, 502, 503, 504],
};

/** Creates the transport every method goes through: auth, timeouts, retries and errors. */
export function createClient<S extends ResultStyle = "throw">(options: ClientOptions<S>): DbmonClient<S> {
  const doFetch = options.fetch ?? ((request: Request) => fetch(request));
  let sessionToken: string | undefined;
  const cookieMode = options.credentials !== undefined && options.credentials !== "omit";

  async function token(): Promise<string | null | undefined> {
    const source = options.token;
    return typeof source === "function" ? await source() : (source ?? sessionToken);
  }

  async function attempt(route: RouteLike, input: StructuredInput, call: CallOptions & { accept?: string }) {
    const headers = new Headers({
      accept: call.accept ?? "application/json",
      ...options.headers,
      ...call.headers,
    });
    const credential = await token();
    if (credential) {
      headers.set("authorization", `Bearer ${credential}`);
    }
    if (input.body !== undefined) {
      headers.set("content-type", "application/json");
    }
    const target = url(options.baseUrl, route.path, input);
    const timeout = call.timeout ?? options.timeout ?? 30_000;
    if (timeout <= 0) {
      // No deadline (streams): the caller's signal goes to fetch itself, so that aborting it also
      // ends a body still being read, and frees the socket, long after the headers came.
      return fetchOrThrow(target, call.signal, () => false);
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeout);
    const onAbort = () => controller.abort(call.signal?.reason);
    call.signal?.addEventListener("abort", onAbort, { once: true });
    if (call.signal?.aborted) {
      onAbort();
    }
    try {
      return await fetchOrThrow(target, controller.signal, () => timedOut);
    } finally {
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", onAbort);
    }

    async function fetchOrThrow(target: URL, signal: AbortSignal | undefined, timedOut: () => boolean) {
      try {
        return await doFetch(
          new Request(target, {
            method: route.method.toUpperCase(),
            headers,
            body: input.body === undefined ? undefined : JSON.stringify(input.body),
            ...(signal ? { signal } : {}),
            ...(options.credentials ? { credentials: options.credentials } : {}),
          }),
        );
      } catch (cause) {
        if (call.signal?.aborted) {
          throw call.signal.reason;
        }
        if (timedOut()) {
          throw new DbmonTimeoutError(`No answer within ${timeout} ms`, { cause });
        }
        throw new DbmonNetworkError(`${route.method.toUpperCase()} ${route.path} failed: ${String(cause)}`, {
          cause,
        });
      }
    }
  }

  async function send(
    route: RouteLike,
    input: StructuredInput = {},
    call: CallOptions & { accept?: string } = {},
  ) {
    const retry =
      call.retry === false || options.retry === false
        ? undefined
        : { ...defaultRetry, ...options.retry, ...call.retry };
    const retries = retry && idempotent.has(route.method.toUpperCase()) ? retry.retries : 0;
    let reauthorized = false;
    for (let n = 0; ; n++) {
      let response: Response;
      try {
        response = await attempt(route, input, call);
      } catch (error) {
        if (!(error instanceof DbmonError) || !retry || n >= retries) {
          throw error;
        }
        await sleep(backoff(retry, n), call.signal);
        continue;
      }
      if (retry && n < retries && retry.statuses.includes(response.status)) {
        await response.body?.cancel();
        await sleep(backoff(retry, n, response.headers.get("retry-after")), call.signal);
        continue;
      }
      if (response.ok) {
        return response;
      }
      const error = await errorOf(response);
      if (
        error instanceof UnauthorizedError &&
        options.onUnauthorized &&
        !reauthorized &&
        route.path !== loginEndpoint.path
      ) {
        reauthorized = true;
        if ((await options.onUnauthorized(error)) === true) {
          n--;
          continue;
        }
      }
      throw error;
    }
  }

  async function settle<T>(run: () => Promise<{ data: T; response: Response }>): Promise<unknown> {
    if (options.responseStyle !== "fields") {
      return (await run()).data;
    }
    try {
      const { data, response } = await run();
      return { data, error: undefined, response };
    } catch (error) {
      if (!(error instanceof DbmonError)) {
        throw error;
      }
      return { data: undefined, error, response: (error as { response?: Response }).response };
    }
  }

  async function request(route: RouteLike, input?: StructuredInput, call?: CallOptions) {
    const response = await send(route, input, call);
    const text = await response.text();
    const data: unknown = text ? JSON.parse(text) : undefined;
    const issues = options.validate ? await options.validate(route, response.status, data) : [];
    if (issues.length > 0) {
      throw new DbmonValidationError(route, issues, data, response);
    }
    return { data, response };
  }

  const client: DbmonClient<S> = {
    call(endpoint, ...args) {
      const [params, call] = args as [Record<string, unknown> | undefined, CallOptions | undefined];
      return settle(() => request(endpoint, structure(endpoint, params), call)) as never;
    },
    request,
    send,
    async stream(route, input, streamOptions = {}) {
      return readEvents((lastEventId, signal) => {
        const headers = {
          ...streamOptions.headers,
          ...(lastEventId ? { "last-event-id": lastEventId } : {}),
        };
        return send(route, input, { signal, headers, timeout: 0, retry: false, accept: "text/event-stream" });
      }, streamOptions);
    },
    login(credentials, call) {
      return settle(async () => {
        const answer = await request(loginEndpoint, { body: credentials }, call);
        // In cookie mode the session cookie the answer sets is the credential: no token is kept.
        if (!cookieMode) {
          sessionToken = (answer.data as LoginResult).session_token;
        }
        return answer;
      }) as never;
    },
    logout(call) {
      return settle(async () => {
        const answer = await request(logoutEndpoint, {}, call);
        sessionToken = undefined;
        return answer;
      }) as never;
    },
  };
  return client;
}

/** Sorts an endpoint's parameters into path parameters, query and body. */
export function structure(endpoint: Endpoint, input: Record<string, unknown> = {}): StructuredInput {
  const params: Record<string, unknown> = {};
  const query: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    const target = endpoint.pathParams.includes(name)
      ? params
      : endpoint.queryParams.includes(name)
        ? query
        : rest;
    target[name] = value;
  }
  const body = endpoint.body === 2 ? input.body : endpoint.body === 1 ? rest : undefined;
  return { params, query, body };
}

async function errorOf(response: Response): Promise<DbmonApiError<never>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: a proxy's error page, say. The text is the body.
  }
  const message =
    body && typeof body === "object" && "error" in body ? String(body.error) : `HTTP ${response.status}`;
  return apiError(response.status, message, body, response);
}

/**
 * The request URL: the base URL with its path kept (`https://host/dbmon` + `/api/v1/...`), the
 * path parameters filled in and the query appended.
 */
function url(baseUrl: string, path: string, input: StructuredInput): URL {
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = input.params?.[name];
    if (value === undefined || value === null) {
      throw new DbmonError(`missing path parameter ${name}`);
    }
    return encodeURIComponent(String(value));
  });
  // `new URL("/api/...", base)` would replace the base's path; a relative base is the page's
  // (typed here without the DOM library, which Node consumers do not have).
  const page = (globalThis as { location?: { href: string } }).location?.href;
  const target = new URL(baseUrl.replace(/\/+$/, "") + filled, page);
  for (const [name, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined && value !== null) {
      target.searchParams.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
  }
  return target;
}

/** Exponential backoff with jitter, or what `Retry-After` asks for (capped at `maxDelay`). */
export function backoff(retry: RetryOptions, n: number, retryAfter?: string | null): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(retryAfter) - Date.now();
    if (!Number.isNaN(ms)) {
      return Math.min(Math.max(ms, 0), retry.maxDelay);
    }
  }
  const ceiling = Math.min(retry.maxDelay, retry.baseDelay * 2 ** n);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", stop, { once: true });
  });
}
