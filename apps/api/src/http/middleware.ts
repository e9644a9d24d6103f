import { createToken, login, logout, userInfo } from "@dbmon/contract";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { cors } from "hono/cors";
import { secureHeaders } from "hono/secure-headers";
import { presentedCredential, RequestAccess } from "../auth/access.js";
import type { Config } from "../config.js";
import type { AppEnv, Services } from "../services.js";
import { API_REFERENCE_PATH } from "./api-reference.js";
import { ApiError } from "./errors.js";

export const MAX_BODY_BYTES = 1024 * 1024;

/** RFC 8631 discovery link, on every JSON response (decision D2). */
export const SERVICE_DESC_LINK = '</api/v1/openapi.json>; rel="service-desc"';

export function provideServices(services: Services): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set("services", services);
    c.set("access", new RequestAccess(services.auth, presentedCredential(c)));
    await next();
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Writes under these paths never touch who may do what (LLM calls, chat compaction, a user's own
 * conversations, MCP messages, which are all POSTs): they keep the access cache, or every chat or
 * MCP message would cost the next request its credential and privilege lookups.
 */
const ACCESS_NEUTRAL_PATHS = ["/api/v1/llm/", "/api/v1/chat/", "/api/v1/conversations", "/mcp/v1"];

/**
 * A state-changing request that succeeded may have changed who may do what: the access cache is
 * dropped before its response is sent, so the caller's next request sees its own change. Refused
 * requests change nothing through the API (so anonymous callers cannot keep the cache empty); what
 * they cause in the datastore (a lockout) arrives by NOTIFY like other processes' changes. A request
 * that knows it changed nothing (a logout that ended no session) says so with `accessUnchanged`.
 */
export const forgetAccessAfterWrites: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (
    !SAFE_METHODS.has(c.req.method) &&
    c.res.status < 400 &&
    !c.get("accessUnchanged") &&
    !ACCESS_NEUTRAL_PATHS.some((prefix) => c.req.path.startsWith(prefix))
  ) {
    c.get("services").auth.cache.clear();
  }
};

/**
 * The same headers everywhere; only the API reference page (and its assets) may also show `data:`
 * images, which Swagger UI's stylesheet uses for its icons. Scripts stay `'self'` on every path.
 */
export function securityHeaders(config: Config): MiddlewareHandler {
  const everywhere = secureHeadersWith(config, {});
  const apiReference = secureHeadersWith(config, { imgSrc: ["'self'", "data:"] });
  return (c, next) =>
    c.req.path === API_REFERENCE_PATH || c.req.path.startsWith(`${API_REFERENCE_PATH}/`)
      ? apiReference(c, next)
      : everywhere(c, next);
}

function secureHeadersWith(config: Config, extraDirectives: { imgSrc?: string[] }): MiddlewareHandler {
  return secureHeaders({
    xContentTypeOptions: "nosniff",
    xFrameOptions: "DENY",
    xXssProtection: "1; mode=block",
    referrerPolicy: "strict-origin-when-cross-origin",
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      fontSrc: ["'self'", "data:"],
      ...extraDirectives,
    },
    strictTransportSecurity: config.hsts ? "max-age=31536000; includeSubDomains" : false,
    // Headers we do not promise; leave the browser defaults.
    crossOriginEmbedderPolicy: false,
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
  });
}

export const CROSS_ORIGIN_REFUSED =
  "Cross-origin request refused: a request authenticated by the session cookie must come from this server's origin";

/**
 * CSRF: a browser attaches the session cookie to a request any other site makes it send, and a POST
 * without a body (or a form's) needs no CORS preflight, so the cookie alone must not make a foreign
 * page's write act for the user. A state-changing request whose credential is the cookie is refused
 * (403) when its `Origin` is another than this server's (the host the request was addressed to) or
 * the configured CORS origin; an opaque `null` origin is foreign too. Bearer requests are not
 * affected (no browser adds that header by itself), nor requests without `Origin`, which browsers
 * send on every cross-origin write.
 */
export function refuseCrossOriginCookieWrites(corsOrigin: string | undefined): MiddlewareHandler<AppEnv> {
  const trusted = corsOrigin === undefined ? undefined : new URL(corsOrigin).origin;
  return async (c, next) => {
    const origin = c.req.header("origin");
    const credential = presentedCredential(c);
    if (
      origin !== undefined &&
      !SAFE_METHODS.has(c.req.method) &&
      credential.kind === "token" &&
      credential.source === "cookie" &&
      !isOwnOrigin(origin, new URL(c.req.url).host, trusted)
    ) {
      throw new ApiError(403, CROSS_ORIGIN_REFUSED);
    }
    await next();
  };
}

/** Whether `origin` is this server's (same host and port as the request's URL) or the trusted one. */
function isOwnOrigin(origin: string, requestHost: string, trusted: string | undefined): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return false;
  }
  return parsed.origin === trusted || parsed.host === requestHost;
}

/**
 * Answers about credentials: the session token of a login, a new service token, who the caller is,
 * and the cookie a logout clears. Every answer of these (refusals included) says `no-store`.
 */
const CREDENTIAL_OPERATIONS = new Set(
  [login, logout, userInfo, createToken].map(
    (operation) => `${operation.method.toUpperCase()} ${operation.path}`,
  ),
);

/**
 * A browser or a proxy must not keep an answer that carries a credential or says whose it is:
 * the answers of CREDENTIAL_OPERATIONS, and any answer that sets a cookie, get
 * `Cache-Control: no-store`.
 */
export const noStoreForCredentials: MiddlewareHandler = async (c, next) => {
  await next();
  const method = c.req.method === "HEAD" ? "GET" : c.req.method;
  if (CREDENTIAL_OPERATIONS.has(`${method} ${c.req.path}`) || c.res.headers.has("set-cookie")) {
    c.res.headers.set("Cache-Control", "no-store");
  }
};

/** CORS for the one configured origin; preflights are answered before authentication. */
export function corsForOrigin(origin: string): MiddlewareHandler {
  return cors({
    origin,
    allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowHeaders: ["Content-Type", "Authorization"],
    exposeHeaders: ["Link", "X-Request-Id"],
    credentials: true,
    maxAge: 600,
  });
}

export const serviceDescLink: MiddlewareHandler = async (c, next) => {
  await next();
  if (c.res.headers.get("content-type")?.startsWith("application/json")) {
    c.res.headers.set("Link", SERVICE_DESC_LINK);
  }
};

const limitBody: MiddlewareHandler = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    // The rest of the body is never read: the socket cannot carry another request after it.
    throw new ApiError(413, "Request body too large (max 1MB)", { Connection: "close" });
  },
});

/**
 * Bodies over 1 MB are refused. GET and HEAD requests carry none, and a body of a declared
 * Content-Length (Node's parser reads no more than that) is judged by the header; only a chunked
 * body is counted as it is read. Hono's check would build the full Fetch Request from Node's
 * request to look for a body, which costs a small request most of its time and moves its body
 * onto a slower path of web streams.
 */
export const limitBodySize: MiddlewareHandler = (c, next) => {
  if (c.req.method === "GET" || c.req.method === "HEAD") {
    return next();
  }
  const declared = c.req.header("content-length");
  if (declared !== undefined && c.req.header("transfer-encoding") === undefined) {
    return Number.parseInt(declared, 10) > MAX_BODY_BYTES ? limitBody(c, next) : next();
  }
  return limitBody(c, next);
};

/** One structured line per request: never the query string, headers or body. */
export const logRequests: MiddlewareHandler<AppEnv> = async (c, next) => {
  const started = performance.now();
  await next();
  const { logger } = c.get("services");
  logger.info(
    {
      requestId: c.get("requestId"),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    },
    "request",
  );
};

const NUL_MESSAGE = "Invalid request: text may not contain NUL characters";

/**
 * PostgreSQL text cannot hold NUL, so a NUL in a path, query or JSON string could only fail deep in
 * a query: it is refused up front as the caller's mistake. The URL is searched for its only
 * encoding (`%00`), the JSON body (already under the size limit, parsed once and cached for the
 * validators) by walking its strings and keys.
 */
export const refuseNulCharacters: MiddlewareHandler = async (c, next) => {
  if (c.req.url.includes("%00")) {
    throw new ApiError(400, NUL_MESSAGE);
  }
  if (!SAFE_METHODS.has(c.req.method) && c.req.header("content-type")?.includes("json")) {
    const body: unknown = await c.req.json().catch(() => undefined);
    if (holdsNul(body)) {
      throw new ApiError(400, NUL_MESSAGE);
    }
  }
  await next();
};

function holdsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === "string") {
      if (item.includes("\u0000")) {
        return true;
      }
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (item !== null && typeof item === "object") {
      for (const [key, entry] of Object.entries(item)) {
        pending.push(key, entry);
      }
    }
  }
  return false;
}
