import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SERVICE_DESC_LINK } from "../src/http/middleware.js";
import { version } from "../src/version.js";
import { buildTestApp, requestJson, type TestApp } from "./support.js";

const committedDocument = JSON.parse(
  readFileSync(new URL("../../../packages/contract/openapi.json", import.meta.url), "utf8"),
) as Record<string, unknown>;

describe("health", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it("answers ok with the exact body, without a token", async () => {
    const res = await requestJson(t.app, "/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ status: "ok", server: "dbmon", version });
  });

  it("answers 503 unavailable when the datastore is down", async () => {
    const down = await buildTestApp();
    await down.datastore.sql.end();
    const res = await requestJson(down.app, "/health");
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: "unavailable",
      server: "dbmon",
      version,
      error: "The datastore is unreachable",
    });
    await down.database.drop();
  });
});

describe("OpenAPI document", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it("serves the committed 3.0.3 document unchanged", async () => {
    const res = await requestJson(t.app, "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const served = (await res.json()) as Record<string, unknown>;
    expect(served.openapi).toBe("3.0.3");
    expect(served).toEqual(committedDocument);
  });

  it("has a handler for every operation of the document", async () => {
    const paths = committedDocument.paths as Record<string, Record<string, unknown>>;
    const registered = new Set(t.app.routes.map((r) => `${r.method} ${r.path}`));
    for (const [path, item] of Object.entries(paths)) {
      for (const method of Object.keys(item)) {
        const honoPath = path.replace(/\{([^}]+)\}/g, ":$1");
        expect(registered.has(`${method.toUpperCase()} ${honoPath}`), `${method} ${path}`).toBe(true);
      }
    }
  });

  it("describes every operation with an id, summary, tags, security and error responses", () => {
    const paths = committedDocument.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const item of Object.values(paths)) {
      for (const op of Object.values(item)) {
        expect(op.operationId).toBeTruthy();
        expect(op.summary).toBeTruthy();
        expect((op.tags as string[]).length).toBeGreaterThan(0);
        expect(Array.isArray(op.security)).toBe(true);
        expect(Object.keys(op.responses as object).some((code) => code.startsWith("4"))).toBe(true);
      }
    }
  });
});

describe("cross-cutting HTTP behaviour", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { hsts: true } });
  });
  afterAll(() => t.close());

  it("answers an unknown path with a JSON 404", async () => {
    const res = await requestJson(t.app, "/api/v1/does-not-exist");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: "Not found" });
  });

  it("answers a wrong method with a JSON 405 and Allow", async () => {
    const res = await requestJson(t.app, "/api/v1/openapi.json", { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    expect(await res.json()).toEqual({ error: "Method not allowed" });
  });

  it("puts the RFC 8631 Link header on success and error responses", async () => {
    for (const path of ["/health", "/api/v1/openapi.json", "/nowhere"]) {
      const res = await requestJson(t.app, path);
      expect(res.headers.get("link"), path).toBe(SERVICE_DESC_LINK);
    }
  });

  it("sets the security headers, HSTS when configured, and a request id", async () => {
    const res = await requestJson(t.app, "/health");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-xss-protection")).toBe("1; mode=block");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:",
    );
    expect(res.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("leaves HSTS off unless configured", async () => {
    const plain = await buildTestApp();
    const res = await requestJson(plain.app, "/health");
    expect(res.headers.get("strict-transport-security")).toBeNull();
    await plain.close();
  });

  it("refuses a body over 1 MiB with a JSON 413", async () => {
    const res = await t.app.request("/health", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ blob: "x".repeat(1024 * 1024 + 1) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "Request body too large (max 1MB)" });
  });

  it("logs one line per request without headers or query strings", async () => {
    await t.app.request("/health?password=hunter2hunter2", {
      headers: { authorization: "Bearer abcdef123456" },
    });
    const text = JSON.stringify(t.logs);
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("abcdef123456");
    expect(t.logs.some((line) => line.msg === "request" && line.path === "/health")).toBe(true);
  });
});

describe("CORS", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ config: { corsOrigin: "https://ui.example.com" } });
  });
  afterAll(() => t.close());

  it("answers a preflight for the configured origin without authentication", async () => {
    const res = await t.app.request("/api/v1/anything", {
      method: "OPTIONS",
      headers: { origin: "https://ui.example.com", "access-control-request-method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://ui.example.com");
    expect(res.headers.get("access-control-allow-credentials")).toBe("true");
  });

  it("does not allow another origin", async () => {
    const res = await t.app.request("/health", { headers: { origin: "https://evil.example.com" } });
    expect(res.headers.get("access-control-allow-origin")).not.toBe("https://evil.example.com");
  });
});
