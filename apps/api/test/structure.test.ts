import { readdirSync, readFileSync } from "node:fs";
import { allOperations } from "@dbmon/contract";
import { describe, expect, it } from "vitest";
import { comparePaths } from "../src/http/operations.js";
import { implementations } from "../src/routes/index.js";

const contractDir = new URL("../../../packages/contract/src/", import.meta.url);
const routesDir = new URL("../src/routes/", import.meta.url);

/** Resource folders of the contract: one file per operation, plus schemas.ts and index.ts. */
const resources = readdirSync(contractDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "groups")
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
