import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../src/index.js";

const CHROMIUM = "/usr/bin/chromium";
const chromiumPresent = existsSync(CHROMIUM);
if (!chromiumPresent) {
  console.warn(`streams: ${CHROMIUM} is absent, so the browser test is skipped (apt-get install chromium)`);
}

const STREAM = { method: "get", path: "/api/v1/overview/stream" } as const;
const HEALTH = { method: "get", path: "/api/v1/health" } as const;

/**
 * A server with a stream that never ends on its own (an event every 20 ms), an ordinary JSON answer,
 * and the page and bundle of the browser test; it counts the streams still open to it.
 */
async function startServer(page = "", bundle = "") {
  let streams = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith(STREAM.path)) {
      streams++;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      let n = 0;
      const timer = setInterval(() => res.write(`id: ${n}\nevent: overview\ndata: {"n":${n++}}\n\n`), 20);
      res.on("close", () => {
        streams--;
        clearInterval(timer);
      });
      return;
    }
    if (req.url === HEALTH.path) {
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    if (req.url === "/client.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    openStreams: () => streams,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(condition: () => boolean, what: string, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`still not ${what} after ${ms} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("streams end, and the server sees them end (Node)", () => {
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const client = () => createClient({ baseUrl: server.baseUrl });

  it("`break` out of the loop", async () => {
    const stream = await client().stream(STREAM, {});
    expect(server.openStreams()).toBe(1);
    for await (const _event of stream) {
      break;
    }
    await until(() => server.openStreams() === 0, "closed");
  });

  it("`close()` while the loop waits for the next event", async () => {
    const stream = await client().stream(STREAM, {}, { reconnect: true });
    const seen: unknown[] = [];
    setTimeout(() => stream.close(), 100);
    for await (const event of stream) {
      seen.push(event);
    }
    expect(seen.length).toBeGreaterThan(0);
    await until(() => server.openStreams() === 0, "closed");
  });

  it("`abort()` of the caller's signal while the loop waits: the loop throws the reason", async () => {
    const controller = new AbortController();
    const stream = await client().stream(STREAM, {}, { signal: controller.signal, reconnect: true });
    setTimeout(() => controller.abort(new Error("enough")), 100);
    await expect(
      (async () => {
        for await (const _event of stream) {
          // read until aborted
        }
      })(),
    ).rejects.toThrow("enough");
    await until(() => server.openStreams() === 0, "closed");
  });

  it("a script that opens a stream and breaks out exits by itself", async () => {
    const script = `
      import { createClient } from ${JSON.stringify(new URL("../src/index.ts", import.meta.url).pathname)};
      const stream = await createClient({ baseUrl: ${JSON.stringify(server.baseUrl)} }).stream(
        { method: "get", path: "/api/v1/overview/stream" }, {});
      for await (const event of stream) { console.log(JSON.stringify(event.data)); break; }`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: new URL("..", import.meta.url).pathname,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        resolve(null);
      }, 15_000);
      child.on("exit", (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    expect(output.trim()).toBe('{"n":0}');
    expect(code).toBe(0);
  }, 20_000);
});

/**
 * The page's script: 20 streams opened and ended (by break, close() and abort() in turn), then
 * ordinary calls. Chromium keeps at most six connections to one host, so a stream that stays open
 * after its end would leave the calls waiting. Plain JavaScript: it runs in the browser as written.
 */
const PAGE_SCRIPT = `
import { createClient } from "/client.js";
const STREAM = ${JSON.stringify(STREAM)};
const HEALTH = ${JSON.stringify(HEALTH)};
window.run = async () => {
  const client = createClient({ baseUrl: location.origin, timeout: 5000 });
  const ends = [];
  for (let i = 0; i < 20; i++) {
    const how = ["break", "close", "abort"][i % 3];
    const controller = new AbortController();
    const stream = await client.stream(STREAM, {}, { signal: controller.signal });
    try {
      for await (const event of stream) {
        if (how === "break") break;
        if (how === "close") stream.close();
        else controller.abort(new Error("aborted"));
      }
      ends.push(how);
    } catch (error) {
      ends.push(how + ": " + error.message);
    }
  }
  const answers = [];
  for (let i = 0; i < 5; i++) answers.push((await client.request(HEALTH)).data);
  return { ends, answers };
};`;

describe.skipIf(!chromiumPresent)("streams end and free their connection (Chromium)", () => {
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    const bundled = await build({
      entryPoints: [new URL("../src/index.ts", import.meta.url).pathname],
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
    });
    const page = `<!doctype html><title>streams</title><script type="module">${PAGE_SCRIPT}</script>`;
    server = await startServer(page, bundled.outputFiles[0]?.text ?? "");
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("20 streams opened and ended, then ordinary calls answer", async () => {
    const page = await browser.newPage();
    await page.goto(server.baseUrl);
    await page.waitForFunction(() => typeof (window as unknown as { run?: unknown }).run === "function");
    const result = await page.evaluate(() =>
      (window as unknown as { run: () => Promise<{ ends: string[]; answers: unknown[] }> }).run(),
    );
    expect(result.ends).toEqual(
      Array.from({ length: 20 }, (_, i) => {
        const how = ["break", "close", "abort"][i % 3] as string;
        return how === "abort" ? "abort: aborted" : how;
      }),
    );
    expect(result.answers).toEqual(Array.from({ length: 5 }, () => ({ status: "ok" })));
    await page.close();
  }, 60_000);
});
