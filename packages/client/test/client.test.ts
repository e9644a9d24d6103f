import { health, openApiDocument } from "@dbmon/contract";
import { describe, expect, expectTypeOf, it } from "vitest";
import { createClient, DbmonApiError, type ResponseOf } from "../src/index.js";

describe("typed client", () => {
  it("infers the success body from the contract", () => {
    expectTypeOf<ResponseOf<typeof health>>().toEqualTypeOf<{
      status: "ok";
      server: "dbmon";
      version: string;
    }>();
  });

  it("sends the token, method and path, and returns the parsed body", async () => {
    const seen: Request[] = [];
    const client = createClient({
      baseUrl: "http://dbmon.test",
      token: "t0k3n",
      fetch: (request) => {
        seen.push(request);
        return Response.json({ status: "ok", server: "dbmon", version: "1.2.3" });
      },
    });
    const body = await client.call(health);
    expect(body).toEqual({ status: "ok", server: "dbmon", version: "1.2.3" });
    expect(seen[0]?.method).toBe("GET");
    expect(seen[0]?.url).toBe("http://dbmon.test/health");
    expect(seen[0]?.headers.get("authorization")).toBe("Bearer t0k3n");
  });

  it("turns an error body into DbmonApiError", async () => {
    const client = createClient({
      baseUrl: "http://dbmon.test",
      fetch: () => Response.json({ error: "Method not allowed" }, { status: 405 }),
    });
    const failure = await client.call(openApiDocument).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DbmonApiError);
    expect(failure).toMatchObject({ status: 405, message: "Method not allowed" });
  });
});
