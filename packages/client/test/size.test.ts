import { basename } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/** A minified browser bundle of `entry`: the gzipped size of each chunk, and the files it took in. */
async function bundle(entry: string) {
  const result = await build({
    stdin: { contents: entry, resolveDir: new URL("../src", import.meta.url).pathname, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    // As browser bundlers do: a dynamic import() becomes a chunk of its own, loaded when reached.
    splitting: true,
    outdir: "/bundle",
    metafile: true,
    write: false,
  });
  const inputsOf = new Map(
    Object.entries(result.metafile.outputs).map(([path, output]) => [
      basename(path),
      Object.keys(output.inputs),
    ]),
  );
  const chunks = result.outputFiles.map((file) => ({
    name: basename(file.path),
    gzipped: gzipSync(file.contents).length,
    inputs: inputsOf.get(basename(file.path)) ?? [],
  }));
  const main = chunks.find((chunk) => chunk.name === "stdin.js");
  const lazy = chunks.filter((chunk) => chunk !== main);
  if (!main) {
    throw new Error("esbuild wrote no stdin.js");
  }
  return { main, lazy };
}

/** Inputs that are Zod, or the contract whose schemas are Zod. */
const zodOrContract = /\/zod\/|\/zod-openapi\/|contract\/src\//;

describe("bundle size", () => {
  it("keeps one imported method with the runtime within 5 kB gzipped, with no Zod", async () => {
    const { main, lazy } = await bundle(
      'import { createClient, getServerInfo } from "./index.js";\n' +
        'createClient({ baseUrl: "/" }).call(getServerInfo, { connection_id: 1 });',
    );
    expect(main.gzipped).toBeLessThanOrEqual(5 * 1024);
    expect(main.inputs.filter((input) => zodOrContract.test(input))).toEqual([]);
    expect(lazy).toEqual([]);
  });

  it("keeps the whole SDK within 9 kB gzipped, free of Zod", async () => {
    const { main, lazy } = await bundle(
      'import { createDbmon } from "./index.js";\nconsole.log(createDbmon({ baseUrl: "/" }));',
    );
    expect(main.gzipped).toBeLessThanOrEqual(9 * 1024);
    expect(main.inputs.filter((input) => zodOrContract.test(input))).toEqual([]);
    expect(lazy).toEqual([]);
  });

  it("loads the contract and Zod of validation mode only when it is used, as a chunk of their own", async () => {
    const { main, lazy } = await bundle(
      'import { createDbmon } from "./index.js";\nimport { contractValidator } from "./validate.js";\n' +
        'console.log(createDbmon({ baseUrl: "/", validate: contractValidator() }));',
    );
    expect(main.gzipped).toBeLessThanOrEqual(9 * 1024);
    expect(main.inputs.filter((input) => zodOrContract.test(input))).toEqual([]);
    expect(lazy.flatMap((chunk) => chunk.inputs).some((input) => zodOrContract.test(input))).toBe(true);
  });
});
