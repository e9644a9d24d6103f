import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, serveTestApp, type TestApp } from "./support.js";

const CHROMIUM = "/usr/bin/chromium";
const chromiumPresent = existsSync(CHROMIUM);
if (!chromiumPresent) {
  console.warn(
    `api-reference: ${CHROMIUM} is absent, so the browser test is skipped (apt-get install chromium)`,
  );
}

const SERVER_INFO_OPERATION =
  '.opblock-get:has(.opblock-summary-path[data-path="/api/v1/server-info/{connection_id}"])';

/** `GET /api/v1/docs`: Swagger UI over our document, every asset served by dbmon itself. */
describe("the API reference page", () => {
  let t: TestApp;
  let served: Awaited<ReturnType<typeof serveTestApp>>;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp();
    served = await serveTestApp(t);
    base = served.url;
  });
  afterAll(async () => {
    await served.close();
    await t.close();
  });

  it("is public HTML that loads only its own assets, with no inline script", async () => {
    const page = await fetch(`${base}/api/v1/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=UTF-8");
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.sort()).toEqual([
      "/api/v1/docs/assets/favicon-32x32.png",
      "/api/v1/docs/assets/initializer.js",
      "/api/v1/docs/assets/swagger-ui-bundle.js",
      "/api/v1/docs/assets/swagger-ui.css",
    ]);
    expect(html).not.toMatch(/<script>/);
    for (const [path, type] of [
      ["/api/v1/docs/assets/initializer.js", "text/javascript; charset=utf-8"],
      ["/api/v1/docs/assets/swagger-ui-bundle.js", "text/javascript; charset=utf-8"],
      ["/api/v1/docs/assets/swagger-ui.css", "text/css; charset=utf-8"],
      ["/api/v1/docs/assets/favicon-32x32.png", "image/png"],
    ] as const) {
      const asset = await fetch(`${base}${path}`);
      expect(asset.status, path).toBe(200);
      expect(asset.headers.get("content-type"), path).toBe(type);
      expect((await asset.arrayBuffer()).byteLength, path).toBeGreaterThan(0);
    }
    expect(await fetch(`${base}/api/v1/docs/assets/package.json`).then((r) => r.status)).toBe(404);
    expect(await fetch(`${base}/api/v1/docs/assets/..%2Fpackage.json`).then((r) => r.status)).toBe(404);
  });

  it("allows data: images on the page only; scripts stay 'self' everywhere", async () => {
    const policy = async (path: string) =>
      (await fetch(`${base}${path}`)).headers.get("content-security-policy");
    expect(await policy("/api/v1/docs")).toBe(
      "default-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:",
    );
    expect(await policy("/api/v1/docs/assets/swagger-ui.css")).toBe(await policy("/api/v1/docs"));
    expect(await policy("/health")).toBe(
      "default-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self' data:",
    );
    expect(await policy("/api/v1/docsx")).toBe(await policy("/health"));
  });

  /** How many operations the served document has, as a reader of the page should find them. */
  async function operationCount(): Promise<number> {
    const document = (await (await fetch(`${base}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    return Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
  }

  describe.skipIf(!chromiumPresent)("in headless Chromium", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--no-first-run",
        ],
      });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it("renders the operations, shows a path parameter, and asks no other origin for anything", async () => {
      const page = await browser.newPage();
      const requested: string[] = [];
      const problems: string[] = [];
      page.on("request", (request) => requested.push(request.url()));
      page.on("console", (message) => {
        if (message.type() === "error") {
          problems.push(message.text());
        }
      });
      page.on("pageerror", (error) => problems.push(error.message));

      await page.goto(`${base}/api/v1/docs`);
      // Swagger UI renders the tags near the viewport only: scroll down as a reader would, noting
      // every operation shown, until each one of the document has been.
      const operations = await operationCount();
      const shown = new Set<string>();
      await page.locator(".opblock").first().waitFor({ timeout: 30_000 });
      for (let step = 0; step < 1000 && shown.size < operations; step++) {
        const blocks = await page
          .locator(".opblock")
          .evaluateAll((found) =>
            found.map(
              (block) =>
                `${block.querySelector(".opblock-summary-method")?.textContent} ${block.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
            ),
          );
        for (const block of blocks) {
          shown.add(block);
        }
        await page.mouse.wheel(0, 400);
      }
      expect(shown.size).toBe(operations);
      expect(shown).toContain("GET /api/v1/server-info/{connection_id}");

      // Back to the top, then down to the one operation, and open it.
      await page.evaluate("window.scrollTo(0, 0)");
      for (let step = 0; step < 1000 && (await page.locator(SERVER_INFO_OPERATION).count()) === 0; step++) {
        await page.mouse.wheel(0, 400);
      }
      const operation = page.locator(SERVER_INFO_OPERATION);
      await operation.locator(".opblock-summary-control").click();
      const parameter = operation.locator(".parameters .parameter__name");
      await parameter.first().waitFor();
      expect(await parameter.allTextContents()).toEqual([expect.stringContaining("connection_id")]);

      expect(requested).toContain(`${base}/api/v1/openapi.json`);
      expect(requested.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
  });
});
