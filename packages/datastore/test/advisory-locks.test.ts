import { describe, expect, it } from "vitest";
import { advisoryLocks } from "../src/advisory-locks.js";

describe("advisory locks", () => {
  it("give every purpose a key of its own", () => {
    const keys = Object.values(advisoryLocks);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
