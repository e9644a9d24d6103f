import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const file = fileURLToPath(new URL("./type-mistakes.ts", import.meta.url));
const source = readFileSync(file, "utf8");
const marker = /^\s*\/\/ @ts-expect-error\b/;

/** The errors of type-mistakes.ts compiled as `text`, by line (0-based), with the package's options. */
function errorsOf(text: string): Map<number, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    fileURLToPath(new URL("../tsconfig.json", import.meta.url)),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!config) {
    throw new Error("tsconfig.json not read");
  }
  const host = ts.createCompilerHost(config.options);
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? text : read(name));
  const program = ts.createProgram({ rootNames: [file], options: { ...config.options, noEmit: true }, host });
  const errors = new Map<number, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    if (diagnostic.file?.fileName !== file || diagnostic.start === undefined) {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    errors.set(line, [
      ...(errors.get(line) ?? []),
      ts.flattenDiagnosticMessageText(diagnostic.messageText, " "),
    ]);
  }
  return errors;
}

describe("type mistakes", () => {
  const lines = source.split("\n");
  const marked = lines.flatMap((line, index) => (marker.test(line) ? [index + 1] : []));

  it("holds at least 30 mistakes", () => {
    expect(marked.length).toBeGreaterThanOrEqual(30);
  });

  it("compiles with every @ts-expect-error used", () => {
    expect([...errorsOf(source).values()].flat()).toEqual([]);
  }, 60_000);

  it("fails to compile on every marked line once the markers are gone", () => {
    const bare = lines.map((line) => (marker.test(line) ? "" : line)).join("\n");
    const errors = errorsOf(bare);
    const silent = marked.filter((line) => !errors.has(line)).map((line) => lines[line]?.trim());
    expect(silent).toEqual([]);
  }, 60_000);
});
