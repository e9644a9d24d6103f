import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** A browser bundle of `entry`, minified: its gzipped size in bytes. */
async function gzippedSize(entry: string): Promise<number> {
  const result = await build({
    stdin: { contents: entry, resolveDir: new URL("../src", import.meta.url).pathname, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
  });
  return gzipSync(result.outputFiles[0]?.contents ?? new Uint8Array()).length;
}

describe("bundle size", () => {
  it("keeps one imported method with the runtime within 8 kB gzipped", async () => {
    const size = await gzippedSize(
      'import { createClient, getServerInfo } from "./index.js";\n' +
        'createClient({ baseUrl: "/" }).call(getServerInfo, { params: { connection_id: 1 } });',
    );
    expect(size).toBeLessThanOrEqual(8 * 1024);
  });

  it("keeps the whole SDK free of Zod", async () => {
    const size = await gzippedSize(
      'import { createDbmon } from "./index.js";\nconsole.log(createDbmon({ baseUrl: "/" }));',
    );
    expect(size).toBeLessThanOrEqual(16 * 1024);
  });
});
