import { describe, expect, it } from "vitest";
import { isAlertOperator, violates } from "../src/index.js";

describe("alert operators", () => {
  it.each([
    [">", 81, 80, true],
    [">", 80, 80, false],
    [">=", 80, 80, true],
    ["<", 79, 80, true],
    ["<", 80, 80, false],
    ["<=", 80, 80, true],
    ["==", 1, 1, true],
    ["==", 0, 1, false],
    ["!=", 0, 1, true],
  ] as const)("%s: %d against %d is %s", (operator, value, threshold, expected) => {
    expect(violates(value, operator, threshold)).toBe(expected);
  });

  it("accepts only the six operators", () => {
    expect([">", ">=", "<", "<=", "==", "!="].every(isAlertOperator)).toBe(true);
    expect(isAlertOperator("=>")).toBe(false);
    expect(isAlertOperator("")).toBe(false);
  });
});
