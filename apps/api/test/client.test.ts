import { createClient, getHealth, getOpenApiDocument } from "@dbmon/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { version } from "../src/version.js";
import { buildTestApp, type TestApp } from "./support.js";

describe("typed client against the API", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it("round-trips health and the OpenAPI document", async () => {
    const client = createClient({ baseUrl: "http://dbmon.test", fetch: (request) => t.app.fetch(request) });
    expect(await client.call(getHealth)).toEqual({ status: "ok", server: "dbmon", version });
    const document = await client.call(getOpenApiDocument);
    expect(document.openapi).toBe("3.0.3");
  });
});
