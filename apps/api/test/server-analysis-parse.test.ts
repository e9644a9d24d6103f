import { describe, expect, it } from "vitest";
import { parseAnalysis } from "../src/server-info/analysis/parse.js";
import { formatBytes } from "../src/server-info/analysis/prompt.js";

const names = ["sales", "analytics", "app_users", "postgres"];

describe("parseAnalysis", () => {
  it("reads the requested form", () => {
    const answer = [
      "sales: Stores the order and invoicing data of a sales application.",
      "analytics: Holds aggregated reporting data.",
    ].join("\n");
    expect(parseAnalysis(answer, names)).toEqual({
      sales: "Stores the order and invoicing data of a sales application.",
      analytics: "Holds aggregated reporting data.",
    });
  });

  it("tolerates list markers, numbering, bold, code spans and headings", () => {
    const answer = [
      "- sales: One.",
      "* analytics: Two.",
      "1. **app_users**: Three.",
      "2) `postgres`: Four.",
    ].join("\n");
    expect(parseAnalysis(answer, names)).toEqual({
      sales: "One.",
      analytics: "Two.",
      app_users: "Three.",
      postgres: "Four.",
    });
    expect(parseAnalysis("## **sales:** Bold with the colon inside.", names)).toEqual({
      sales: "Bold with the colon inside.",
    });
    expect(parseAnalysis("• *sales*: Italic name.\r\n(2) analytics: Parenthesised number.", names)).toEqual({
      sales: "Italic name.",
      analytics: "Parenthesised number.",
    });
  });

  it("accepts a dash between name and description", () => {
    expect(parseAnalysis("- sales - Orders.\n- analytics — Reports.\n- postgres – Default.", names)).toEqual({
      sales: "Orders.",
      analytics: "Reports.",
      postgres: "Default.",
    });
  });

  it("ignores prose, unknown databases and lines without a description", () => {
    const answer = [
      "Here is my analysis of the databases:",
      "",
      "sales: Orders.",
      "inventory: Not a database on this server.",
      "analytics:",
      "postgres:    ",
      "Note: app_users looks like an authentication store.",
      "I hope this helps!",
    ].join("\n");
    expect(parseAnalysis(answer, names)).toEqual({ sales: "Orders." });
  });

  it("keeps the first line about a database and the order of the given names", () => {
    const answer = "postgres: Default.\nsales: First.\nsales: Second.";
    const result = parseAnalysis(answer, names);
    expect(result).toEqual({ sales: "First.", postgres: "Default." });
    expect(Object.keys(result)).toEqual(["sales", "postgres"]);
  });

  it("reads a markdown table", () => {
    const answer = [
      "| Database | Purpose |",
      "|---|---|",
      "| sales | Orders and invoices. |",
      "| `analytics` | Reports",
    ].join("\n");
    expect(parseAnalysis(answer, names)).toEqual({ sales: "Orders and invoices.", analytics: "Reports" });
  });

  it("accepts the details from the prompt repeated after the name", () => {
    const answer = [
      "- sales (size: 12.3 MB; extensions: pg_trgm): Orders.",
      "- **analytics** (40 GB): Reports.",
      "postgres (size: unknown; extensions: none) - Default.",
    ].join("\n");
    expect(parseAnalysis(answer, [...names, "archive (old)"])).toEqual({
      sales: "Orders.",
      analytics: "Reports.",
      postgres: "Default.",
    });
    expect(parseAnalysis("archive (old): Old archive.", ["archive", "archive (old)"])).toEqual({
      "archive (old)": "Old archive.",
    });
  });

  it("handles names that contain a colon, a dash or spaces", () => {
    const tricky = ["team:alpha", "billing - eu", "Customer Data"];
    const answer = "team:alpha: Alpha team.\nbilling - eu: European billing.\n- Customer Data: Customers.";
    expect(parseAnalysis(answer, tricky)).toEqual({
      "team:alpha": "Alpha team.",
      "billing - eu": "European billing.",
      "Customer Data": "Customers.",
    });
  });

  it("matches a name written in another case only when that is unambiguous", () => {
    expect(parseAnalysis("SALES: Orders.", names)).toEqual({ sales: "Orders." });
    expect(parseAnalysis("ORDERS: Ambiguous.", ["orders", "Orders"])).toEqual({});
    expect(parseAnalysis("Orders: Exact.", ["orders", "Orders"])).toEqual({ Orders: "Exact." });
  });

  it("collapses whitespace and strips quotes around the description", () => {
    expect(parseAnalysis('sales:   "Stores   orders."  ', names)).toEqual({ sales: "Stores orders." });
  });

  it("finds nothing in garbage or an empty answer", () => {
    expect(parseAnalysis("", names)).toEqual({});
    expect(parseAnalysis("\u0000\u0001 ::: --- ***", names)).toEqual({});
    expect(parseAnalysis("I cannot help with that.", names)).toEqual({});
  });
});

describe("formatBytes", () => {
  it.each([
    [0, "0 bytes"],
    [1023, "1023 bytes"],
    [1024, "1 kB"],
    [1536, "1.5 kB"],
    [12.3 * 1024 * 1024, "12.3 MB"],
    [512 * 1024 ** 3, "512 GB"],
    [3 * 1024 ** 4, "3 TB"],
    [2048 * 1024 ** 5, "2048 PB"],
  ])("%d bytes read as %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
