import { describe, expect, it } from "vitest";
import { MalformedArrayError, parseArrayLiteral } from "../src/array-literal.js";

const text = (raw: string) => raw;

describe("parseArrayLiteral", () => {
  it("reads PostgreSQL's array output: quoting, escapes, NULL, nesting, bounds", () => {
    expect(parseArrayLiteral("{}", text)).toEqual([]);
    expect(parseArrayLiteral("{a,b}", text)).toEqual(["a", "b"]);
    expect(parseArrayLiteral('{"b c","",NULL,"NULL",null}', text)).toEqual(["b c", "", null, "NULL", null]);
    expect(parseArrayLiteral('{"say \\"hi\\"","back\\\\slash","{braces}","a,b"}', text)).toEqual([
      'say "hi"',
      "back\\slash",
      "{braces}",
      "a,b",
    ]);
    expect(parseArrayLiteral("{{1,2},{3,NULL}}", Number)).toEqual([
      [1, 2],
      [3, null],
    ]);
    expect(parseArrayLiteral("{{}}", text)).toEqual([[]]);
    expect(parseArrayLiteral("[0:1]={x,y}", text)).toEqual(["x", "y"]);
    expect(parseArrayLiteral("{é,日本}", text)).toEqual(["é", "日本"]);
  });

  it("refuses malformed text instead of guessing, wherever it breaks", () => {
    for (const malformed of [
      "",
      "a",
      "{",
      "{a",
      "{a,b",
      '{"a',
      '{"a\\',
      "{a\\",
      "{a}x",
      "{a}}",
      "{a{b}}",
      "{,}",
      "{a,,b}",
      "[1:2]",
      "[1:2]x{a}",
      "{{a}",
    ]) {
      expect(() => parseArrayLiteral(malformed, text), malformed).toThrow(MalformedArrayError);
    }
  });

  it("reads a large or deeply nested array in one pass (no backtracking, no recursion)", () => {
    const wide = `{${Array.from({ length: 200_000 }, (_, i) => `"v${i}"`).join(",")}}`;
    expect(parseArrayLiteral(wide, text)).toHaveLength(200_000);
    const depth = 100_000;
    const deep = `${"{".repeat(depth)}${"}".repeat(depth)}`;
    let level = parseArrayLiteral(deep, text);
    for (let i = 1; i < depth; i++) {
      level = level[0] as typeof level;
    }
    expect(level).toEqual([]);
    expect(() => parseArrayLiteral(`{"${"x".repeat(1_000_000)}`, text)).toThrow(MalformedArrayError);
    expect(() => parseArrayLiteral("{".repeat(1_000_000), text)).toThrow(MalformedArrayError);
  });
});
