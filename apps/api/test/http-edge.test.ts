import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClientErrorsAsJson } from "../src/http/client-errors.js";
import { buildTestApp, serveTestApp, type TestApp } from "./support.js";

/** The HTTP edge over a real socket, where keep-alive and Node's parser come into play. */
describe("the HTTP edge", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveTestApp>>;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    served = await serveTestApp(t);
    answerClientErrorsAsJson(served.server);
    base = served.url;
  });
  afterAll(async () => {
    await served.close();
    await t.close();
  });

  it("answers the next request on the same client after a 413", async () => {
    const big = await fetch(`${base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "x".repeat(2 * 1024 * 1024), password: "y" }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ error: "Request body too large (max 1MB)" });
    const next = await fetch(`${base}/health`);
    expect(next.status).toBe(200);
    expect(await next.json()).toMatchObject({ status: "ok" });
  });

  it("answers over-long headers with a JSON 431", async () => {
    const res = await fetch(`${base}/health`, { headers: { "x-padding": "p".repeat(64 * 1024) } });
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ error: "Request headers too large" });
  });

  it("answers an over-long URL with a JSON 431", async () => {
    const res = await fetch(`${base}/health?q=${"q".repeat(64 * 1024)}`);
    expect(res.status).toBe(431);
    expect(await res.json()).toEqual({ error: "Request headers too large" });
  });
});
