import { probeCatalogue } from "@dbmon/monitoring";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CorpusChunk, loadCorpus, markdownSections } from "../src/knowledge-base/corpus.js";
import { KnowledgeBase } from "../src/knowledge-base/service.js";
import { version } from "../src/version.js";
import { buildTestApp, callBridgeTool, createUser, type TestApp, type TestUser } from "./support.js";

describe("markdownSections", () => {
  it("splits at headings, titles sections by their heading path, and keeps code fences whole", () => {
    const markdown = [
      "# Guide",
      "Intro.",
      "## Setup",
      "Install it.",
      "```sh",
      "# not a heading",
      "```",
      "### Tokens",
      "Create one.",
      "## Use",
      "Run it.",
    ].join("\n");
    expect(markdownSections(markdown)).toEqual([
      { title: "Guide", content: "Intro." },
      { title: "Guide › Setup", content: "Install it.\n```sh\n# not a heading\n```" },
      { title: "Guide › Setup › Tokens", content: "Create one." },
      { title: "Guide › Use", content: "Run it." },
    ]);
  });
});

describe("search_knowledgebase", () => {
  let t: TestApp;
  let root: TestUser;
  let plain: TestUser;

  const call = async (token: string, args: Record<string, unknown>) => {
    const result = await callBridgeTool(t, token, "search_knowledgebase", args);
    return { error: result.isError === true, text: result.content.map((c) => c.text).join("\n") };
  };

  beforeAll(async () => {
    t = await buildTestApp();
    root = await createUser(t, "root", { superuser: true });
    plain = await createUser(t, "plain");
  });
  afterAll(() => t.close());

  it("indexes the shipped corpus: README, docs/*.md, the probe catalogue and the alert rules", async () => {
    const corpus = await loadCorpus();
    const sources = new Set(corpus.map((chunk) => chunk.source));
    expect([...sources]).toEqual(
      expect.arrayContaining(["README.md", "docs/mcp.md", "docs/auth.md", "probe catalogue", "alert rules"]),
    );
    expect(corpus.filter((chunk) => chunk.source === "probe catalogue")).toHaveLength(probeCatalogue.length);
    const listed = await call(root.token, { list_products: true });
    expect(listed.error).toBe(false);
    const [header, row] = listed.text.split("\n");
    expect(header).toBe("project_name\tproject_version\tsections\tsources");
    expect(row).toMatch(new RegExp(`^dbmon\\t${version.replace(/\./g, "\\.")}\\t${corpus.length}\\t`));
    expect(row).toContain("docs/mcp.md");
  });

  it("finds sections by full-text search, best first, with source, snippet and text", async () => {
    const found = await call(root.token, { query: "Claude Desktop bridge", top_n: 3 });
    expect(found.error).toBe(false);
    const results = found.text.split("\n\n---\n\n");
    expect(results.length).toBeGreaterThan(0);
    expect(results.length).toBeLessThanOrEqual(3);
    expect(results[0]).toMatch(
      /^\[1\] .*\nsource: docs\/mcp\.md \(dbmon [^)]+\); rank [\d.]+\nsnippet: .*\*\*/,
    );
    const probe = await call(root.token, { query: "replication slots retained WAL" });
    expect(probe.text).toMatch(/^\[1\] Probe pg_replication_slots\nsource: probe catalogue/);
    // Sections holding every word rank above sections holding some of them.
    const ranks = [...probe.text.matchAll(/; rank ([\d.]+)\n/g)].map((match) => Number(match[1]));
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(ranks[0]).toBeGreaterThan(1);
  });

  it("filters by project and version, and says when nothing matches", async () => {
    expect(await call(root.token, { query: "tokens", project_names: ["PostgreSQL"] })).toEqual({
      error: false,
      text: 'No documentation matches "tokens"',
    });
    expect((await call(root.token, { query: "tokens", project_names: ["DBMON"] })).text).toMatch(/^\[1\]/);
    expect((await call(root.token, { query: "tokens", project_versions: ["0.0.0-none"] })).text).toMatch(
      /^No documentation matches/,
    );
    expect(await call(root.token, { query: "zzzqqqxxy" })).toEqual({
      error: false,
      text: 'No documentation matches "zzzqqqxxy"',
    });
  });

  it("refuses a search without a query, top_n above 20, and callers without the privilege", async () => {
    expect(await call(root.token, {})).toEqual({
      error: true,
      text: "query is required unless list_products is true",
    });
    expect((await call(root.token, { query: "x", top_n: 21 })).error).toBe(true);
    expect(await call(plain.token, { query: "tokens" })).toEqual({
      error: true,
      text: "Access denied: you do not have permission to use tool 'search_knowledgebase'",
    });
  });

  it("rebuilds the index only when the corpus changed", async () => {
    const chunk = (content: string): CorpusChunk => ({
      projectName: "test",
      projectVersion: "1",
      source: "test.md",
      title: "Test",
      content,
    });
    const ids = async () =>
      (await t.datastore.sql<{ id: number }[]>`select id from knowledge_base_chunks order by id`).map(
        (row) => row.id,
      );
    const first = new KnowledgeBase({ ...t.services, corpus: async () => [chunk("alpha words")] });
    await first.ensureIndexed();
    const indexed = await ids();
    expect(indexed).toHaveLength(1);
    await new KnowledgeBase({ ...t.services, corpus: async () => [chunk("alpha words")] }).ensureIndexed();
    expect(await ids()).toEqual(indexed);
    const changed = new KnowledgeBase({ ...t.services, corpus: async () => [chunk("beta words")] });
    expect((await changed.search({ query: "beta" }))[0]).toMatchObject({ source: "test.md", title: "Test" });
    expect(await ids()).not.toEqual(indexed);
  });
});
