import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { builtInRules } from "@dbmon/datastore";
import { probeCatalogue } from "@dbmon/monitoring";
import { version } from "../version.js";

/** One searchable section of the corpus. */
export interface CorpusChunk {
  projectName: string;
  projectVersion: string;
  source: string;
  title: string;
  content: string;
}

export const PROJECT_NAME = "dbmon";

/** Sections longer than this are split at paragraph breaks, so a match points at a readable part. */
const MAX_CHUNK_CHARACTERS = 4_000;

/**
 * Where the documentation files are: beside the bundle (`dist/knowledge-base`, copied there by the
 * build, see tsup.config.ts) when dbmon runs built, else the repository root when it runs from source.
 * Both hold README.md and docs/*.md at the same relative paths.
 */
export function corpusRoot(): string {
  const candidates = [
    new URL("./knowledge-base/", import.meta.url),
    new URL("../../../../", import.meta.url),
  ];
  const found = candidates
    .map((candidate) => fileURLToPath(candidate))
    .find((path) => existsSync(join(path, "README.md")) && existsSync(join(path, "docs")));
  if (!found) {
    throw new Error("the documentation corpus is missing from this build (README.md and docs/)");
  }
  return found;
}

/** The documentation files of the corpus, relative to its root, in a stable order. */
async function documentationFiles(root: string): Promise<string[]> {
  const docs = (await readdir(join(root, "docs"))).filter((name) => name.endsWith(".md")).sort();
  return ["README.md", ...docs.map((name) => `docs/${name}`)];
}

/**
 * Splits Markdown into sections at its headings (#, ##, ###), each titled by its heading path;
 * fenced code blocks are kept whole and never read as headings.
 */
export function markdownSections(markdown: string): { title: string; content: string }[] {
  const sections: { title: string; content: string }[] = [];
  const headings: string[] = [];
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const content = lines.join("\n").trim();
    if (content) {
      sections.push({ title: headings.filter(Boolean).join(" › "), content });
    }
    lines = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
    }
    const heading = inFence ? null : /^(#{1,3})\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      const level = (heading[1] as string).length;
      headings.length = level - 1;
      headings[level - 1] = heading[2] as string;
      continue;
    }
    lines.push(line);
  }
  flush();
  return sections.flatMap((section) =>
    splitLong(section.content).map((content) => ({ title: section.title, content })),
  );
}

function splitLong(content: string): string[] {
  if (content.length <= MAX_CHUNK_CHARACTERS) {
    return [content];
  }
  const parts: string[] = [];
  let current = "";
  for (const paragraph of content.split(/\n\s*\n/)) {
    if (current && current.length + paragraph.length > MAX_CHUNK_CHARACTERS) {
      parts.push(current);
      current = "";
    }
    current = current ? `${current}\n\n${paragraph}` : paragraph;
  }
  if (current) {
    parts.push(current);
  }
  return parts;
}

/**
 * Everything search_knowledgebase searches: dbmon's documentation (README and docs/), the probe
 * catalogue (what each probe collects and its columns) and the built-in alert rules.
 */
export async function loadCorpus(root = corpusRoot()): Promise<CorpusChunk[]> {
  const chunk = (source: string, title: string, content: string): CorpusChunk => ({
    projectName: PROJECT_NAME,
    projectVersion: version,
    source,
    title,
    content,
  });
  const chunks: CorpusChunk[] = [];
  for (const file of await documentationFiles(root)) {
    const markdown = await readFile(join(root, file), "utf8");
    for (const section of markdownSections(markdown)) {
      chunks.push(chunk(file, section.title || file, section.content));
    }
  }
  for (const probe of probeCatalogue) {
    chunks.push(
      chunk(
        "probe catalogue",
        `Probe ${probe.name}`,
        [
          `${probe.description}.`,
          `Scope: ${probe.scope}; collected every ${probe.intervalSeconds} s; kept ${probe.retentionDays} days; table metrics.${probe.name}.`,
          `Columns: ${probe.columns.map((column) => `${column.name} (${column.type})`).join(", ")}.`,
        ].join("\n"),
      ),
    );
  }
  for (const rule of builtInRules) {
    chunks.push(
      chunk(
        "alert rules",
        `Alert rule ${rule.name}`,
        [
          `${rule.description}`,
          `Category: ${rule.category}; metric ${rule.metricName}${rule.metricUnit ? ` (${rule.metricUnit})` : ""}; fires when ${rule.operator} ${rule.threshold}, severity ${rule.severity}${rule.requiredExtension ? `; needs the ${rule.requiredExtension} extension` : ""}.`,
        ].join("\n"),
      ),
    );
  }
  return chunks;
}

/** A fingerprint of the corpus: the index is rebuilt when it changes. */
export function corpusDigest(chunks: readonly CorpusChunk[]): string {
  return createHash("sha256").update(JSON.stringify(chunks)).digest("hex");
}
