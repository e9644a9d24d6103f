import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { renderConfigurationTable, renderEnvExample, TABLE_END, TABLE_START } from "../src/config-table.js";

const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");

/** The README's tables cannot drift from the config schema and the command line. */
describe("README", () => {
  it("shows the configuration table rendered from the config schema (`pnpm readme` renders it)", () => {
    const table = readme.slice(readme.indexOf(TABLE_START) + TABLE_START.length, readme.indexOf(TABLE_END));
    expect(table.trim()).toBe(renderConfigurationTable());
  });

  it("ships .env.example rendered from the config schema, every variable in it (`pnpm readme` renders it)", () => {
    const example = readFileSync(new URL("../../../.env.example", import.meta.url), "utf8");
    expect(example).toBe(renderEnvExample());
    const inExample = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map((match) => match[1]);
    const inTable = [...renderConfigurationTable().matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((match) => match[1]);
    expect(inExample).toEqual(inTable);
    expect(inExample).toEqual(expect.arrayContaining(["DBMON_SECRET", "ANTHROPIC_API_KEY"]));
  });

  it("lists every command of `dbmon --help`", () => {
    const help = execFileSync(process.execPath, ["--import", "tsx", "src/cli.ts", "--help"], {
      cwd: new URL("..", import.meta.url),
      encoding: "utf8",
    });
    const commands = [...help.slice(help.indexOf("Commands:")).matchAll(/^ {2}([a-z-]+)/gm)]
      .map((match) => match[1])
      .filter((command) => command !== "help");
    expect(commands).toHaveLength(8);
    const section = readme.slice(readme.indexOf("## Command line"), readme.indexOf("## Architecture"));
    const documented = [...section.matchAll(/^\| `dbmon ([a-z-]+)/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(commands.sort());
  });
});
