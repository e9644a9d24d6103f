import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "dbmon-client-consumer-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * A consumer project with the packed client (as npm users get it: the tarball of `pnpm pack`,
 * with its publishConfig exports) and its one dependency, and nothing else: no contract, no Zod.
 */
function consumer(): string {
  execFileSync("pnpm", ["pack", "--pack-destination", scratch], { cwd: packageDir, stdio: "ignore" });
  const tarball = readdirSync(scratch).find((name) => name.endsWith(".tgz"));
  const installed = join(scratch, "node_modules", "@dbmon", "client");
  mkdirSync(installed, { recursive: true });
  execFileSync("tar", ["-xzf", join(scratch, tarball ?? ""), "-C", installed, "--strip-components=1"]);
  const parser = realpathSync(join(packageDir, "node_modules", "eventsource-parser"));
  symlinkSync(parser, join(scratch, "node_modules", "eventsource-parser"), "dir");
  const app = join(scratch, "app.ts");
  writeFileSync(
    app,
    `import { createDbmon, type Alert, type ListAlertsParams, NotFoundError } from "@dbmon/client";
const dbmon = createDbmon({ baseUrl: "http://127.0.0.1:8080", token: "t" });
const params: ListAlertsParams = { status: "active", connection_ids: [1, 2], limit: 10 };
export async function main(): Promise<Alert[]> {
  await dbmon.auth.login({ username: "admin", password: "secret" });
  const users = await dbmon.rbac.users.list();
  console.log(users, NotFoundError);
  return (await dbmon.alerts.list(params)).alerts;
}
`,
  );
  return app;
}

describe("the packed client stands alone", () => {
  it("type-checks a consumer with under 5,000 lines of dbmon declarations and no Zod or Hono", () => {
    const app = consumer();
    const program = ts.createProgram({
      rootNames: [app],
      options: {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
        types: [],
      },
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, " "));
    expect(diagnostics).toEqual([]);
    const files = program.getSourceFiles().map((file) => file.fileName);
    const dbmon = program.getSourceFiles().filter((file) => file.fileName.includes("/node_modules/@dbmon/"));
    const lines = dbmon.reduce((sum, file) => sum + file.text.split("\n").length, 0);
    expect(dbmon.length).toBeGreaterThan(0);
    expect(lines).toBeLessThan(5_000);
    expect(files.filter((name) => /\/(zod|hono|@hono|@dbmon\/contract)\//.test(name))).toEqual([]);
    for (const file of dbmon) {
      expect(file.text, file.fileName).not.toMatch(/from ["'](zod|hono|@hono\/[^"']*|@dbmon\/contract)["']/);
    }
  }, 120_000);

  it("depends on eventsource-parser alone at run time", () => {
    const manifest = JSON.parse(
      readFileSync(join(scratch, "node_modules", "@dbmon", "client", "package.json"), "utf8"),
    ) as {
      dependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean }>;
    };
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(["eventsource-parser"]);
    // Validation mode's contract is an optional peer: installed only by those who use it.
    expect(manifest.peerDependenciesMeta?.["@dbmon/contract"]?.optional).toBe(true);
  });
});
