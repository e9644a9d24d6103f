import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { allOperations } from "@dbmon/contract";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { comparePaths } from "../src/http/operations.js";
import { implementations } from "../src/routes/index.js";

const contractDir = new URL("../../../packages/contract/src/", import.meta.url);
const routesDir = new URL("../src/routes/", import.meta.url);

/** Resource folders of the contract: one file per operation, plus schemas.ts and index.ts. */
const resources = readdirSync(contractDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const operationFiles = resources.flatMap((resource) =>
  readdirSync(new URL(`${resource}/`, contractDir))
    .filter((file) => file.endsWith(".ts") && file !== "schemas.ts" && file !== "index.ts")
    .map((file) => ({ resource, file })),
);

describe("one file per operation", () => {
  it.each(operationFiles)(
    "$resource/$file defines one operation and has a handler of the same name",
    ({ resource, file }) => {
      const source = readFileSync(new URL(`${resource}/${file}`, contractDir), "utf8");
      expect(source.match(/defineOperation\(/g)).toHaveLength(1);
      const handlers = readdirSync(new URL(`${resource}/`, routesDir));
      expect(handlers).toContain(file);
    },
  );

  it("every operation of the contract is implemented exactly once", () => {
    const implemented = implementations.map((implementation) => implementation.operation.operationId);
    expect([...implemented].sort()).toEqual(allOperations.map((operation) => operation.operationId).sort());
  });
});

describe("registration order", () => {
  it("puts a literal segment before a parameter wherever two paths could match the same URL", () => {
    const paths = ["/api/v1/connections/{id}", "/api/v1/connections/current", "/api/v1/connections"];
    expect([...paths].sort(comparePaths)).toEqual([
      "/api/v1/connections",
      "/api/v1/connections/current",
      "/api/v1/connections/{id}",
    ]);
  });
});

describe("imports", () => {
  const sourceDir = fileURLToPath(new URL("../src/", import.meta.url));
  const files = (readdirSync(sourceDir, { recursive: true }) as string[])
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(sourceDir, file));

  /** Each file's relative imports (types included: a circle of types ties modules together too). */
  const graph = new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
      const targets = importedFiles
        .map(({ fileName }) => fileName)
        .filter((name) => name.startsWith("."))
        .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts")));
      return [file, targets.filter((target) => files.includes(target))];
    }),
  );

  it("form no circle longer than 3 files in apps/api/src", () => {
    const circles = stronglyConnected(graph).filter((component) => component.length > 3);
    expect(circles.map((component) => component.map((file) => relative(sourceDir, file)).sort())).toEqual([]);
  });
});

describe("workspace packages", () => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const packages = ["apps", "packages", "tooling"].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => {
        const dir = join(root, parent, entry.name);
        const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
          name: string;
          exports?: Record<string, unknown>;
        };
        return { name: manifest.name, dir, exports: Object.keys(manifest.exports ?? {}) };
      }),
  );
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));

  /** Every TypeScript file of a package (its build output and dependencies aside) with its imports. */
  const importsOf = (dir: string) =>
    (readdirSync(dir, { recursive: true }) as string[])
      .filter((file) => file.endsWith(".ts") && !/(^|\/)(node_modules|dist)\//.test(file))
      .map((file) => join(dir, file))
      .map((file) => ({
        file,
        imports: ts
          .preProcessFile(readFileSync(file, "utf8"), true, false)
          .importedFiles.map(({ fileName }) => fileName),
      }));

  it("import one another only through the entries their package.json exports", () => {
    const reachingIn: string[] = [];
    for (const pkg of packages) {
      for (const { file, imports } of importsOf(pkg.dir)) {
        for (const name of imports) {
          const where = `${relative(root, file)}: ${name}`;
          if (name.startsWith(".")) {
            if (relative(pkg.dir, resolve(dirname(file), name)).startsWith("..")) {
              reachingIn.push(where);
            }
            continue;
          }
          const [scope, base, ...rest] = name.split("/");
          const target = scope === "@dbmon" ? byName.get(`${scope}/${base}`) : undefined;
          if (scope === "@dbmon" && !target?.exports.includes(["."].concat(rest).join("/"))) {
            reachingIn.push(where);
          }
        }
      }
    }
    expect(reachingIn).toEqual([]);
  });

  it("keep storage below monitoring: the datastore imports no workspace package, @dbmon/monitoring only the datastore", () => {
    const allowed: Record<string, string[]> = {
      "@dbmon/datastore": ["@dbmon/vitest-config"],
      "@dbmon/monitoring": ["@dbmon/datastore", "@dbmon/vitest-config"],
    };
    const outside: string[] = [];
    for (const [name, may] of Object.entries(allowed)) {
      const pkg = byName.get(name);
      expect(pkg, name).toBeDefined();
      for (const { file, imports } of importsOf(pkg?.dir ?? "")) {
        for (const imported of imports.filter((spec) => spec.startsWith("@dbmon/"))) {
          if (!may.includes(imported.split("/").slice(0, 2).join("/"))) {
            outside.push(`${relative(root, file)}: ${imported}`);
          }
        }
      }
    }
    expect(outside).toEqual([]);
  });
});

/** Tarjan's strongly connected components of a directed graph (iterative: no deep recursion). */
function stronglyConnected(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) {
      continue;
    }
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; edge: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++] as string;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(target) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) {
        low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string | undefined;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}
