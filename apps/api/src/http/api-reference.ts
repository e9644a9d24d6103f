import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { App } from "./app-type.js";

/** The interactive API reference: Swagger UI over our OpenAPI document, public, no CDN. */
export const API_REFERENCE_PATH = "/api/v1/docs";
const ASSETS_PATH = `${API_REFERENCE_PATH}/assets`;

/**
 * Runs Swagger UI from a file of its own, so the page needs no inline script and the
 * Content-Security-Policy keeps `script-src 'self'`. No validator: it would call validator.swagger.io.
 */
const INITIALIZER = `window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/api/v1/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>dbmon API reference</title>
    <link rel="icon" type="image/png" href="${ASSETS_PATH}/favicon-32x32.png">
    <link rel="stylesheet" href="${ASSETS_PATH}/swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${ASSETS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${ASSETS_PATH}/initializer.js"></script>
  </body>
</html>
`;

/** The files of `swagger-ui-dist` the page uses, by the name they are served under. */
const DIST_ASSETS: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

/**
 * `GET /api/v1/docs` and its assets, all served from this process (from `node_modules`), so the
 * page works offline. Not an operation of the contract: it describes the document, it is not in it.
 * Assets are read once per app, when first asked for.
 */
export function registerApiReference(app: App): void {
  const distDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const loaded = new Map<string, Promise<Buffer>>();
  const asset = (name: string): Promise<Buffer> => {
    let content = loaded.get(name);
    if (!content) {
      content = readFile(join(distDir, name));
      loaded.set(name, content);
    }
    return content;
  };

  app.get(API_REFERENCE_PATH, (c) => c.html(PAGE));
  app.get(`${ASSETS_PATH}/initializer.js`, (c) =>
    c.body(INITIALIZER, 200, { "Content-Type": "text/javascript; charset=utf-8" }),
  );
  for (const [name, contentType] of Object.entries(DIST_ASSETS)) {
    app.get(`${ASSETS_PATH}/${name}`, async (c) =>
      c.body(new Uint8Array(await asset(name)), 200, {
        "Content-Type": contentType,
        "Cache-Control": "public, max-age=86400",
      }),
    );
  }
}
