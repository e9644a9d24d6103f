import { llmEnvironmentVariables } from "@dbmon/llm";
import { z } from "zod";
import { environmentVariables } from "./config.js";

/** The README's configuration table lies between these lines, rendered by `pnpm readme`. */
export const TABLE_START = "<!-- configuration table: rendered from the config schema by `pnpm readme` -->";
export const TABLE_END = "<!-- end of configuration table -->";

/** Every variable the configuration reads, with its schema (which must describe it). */
function variables(): [string, z.ZodType, string][] {
  return [
    ...Object.entries(environmentVariables.shape),
    ...Object.entries(llmEnvironmentVariables.shape),
  ].map(([name, schema]: [string, z.ZodType]) => {
    if (!schema.description) {
      throw new Error(`${name} has no description in the config schema`);
    }
    return [name, schema, schema.description];
  });
}

/** One row per variable the configuration reads: its name, default and meaning, from the schemas. */
export function renderConfigurationTable(): string {
  const rows = variables().map(([name, schema, meaning]) => [`\`${name}\``, defaultOf(schema), meaning]);
  return markdownTable(["Variable", "Default", "Meaning"], rows);
}

/**
 * `.env.example`, rendered by `pnpm readme` from the same schemas: each variable with its meaning,
 * set to its default, or commented out where it has none.
 */
export function renderEnvExample(): string {
  const header = [
    "# dbmon's configuration, rendered from the config schema by `pnpm readme`: do not edit by hand.",
    "# dbmon reads it from the environment; a .env file in the working directory is loaded too",
    "# (variables already set win). Every variable is optional.",
  ];
  const entries = variables().map(([name, schema, meaning]) => {
    const comment = wrapped(meaning.replaceAll("`", ""), 98).map((line) => `# ${line}`);
    const value = schema instanceof z.ZodDefault ? defaultOf(schema).replaceAll("`", "") : undefined;
    const setting = value === undefined || value === "none" ? `# ${name}=` : `${name}=${value}`;
    return [...comment, setting].join("\n");
  });
  return `${[header.join("\n"), ...entries].join("\n\n")}\n`;
}

/** Words in lines of at most `width` characters (a longer word stands alone). */
function wrapped(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : lines;
}

/** The README with its configuration table replaced by the rendered one. */
export function withConfigurationTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) {
    throw new Error("README.md has no configuration table markers");
  }
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${renderConfigurationTable()}\n\n${readme.slice(end)}`;
}

function defaultOf(schema: z.ZodType): string {
  if (!(schema instanceof z.ZodDefault)) {
    return "unset";
  }
  const value: unknown = schema.def.defaultValue;
  if (Array.isArray(value)) {
    return value.length === 0 ? "none" : `\`${value.join(",")}\``;
  }
  return `\`${String(value)}\``;
}

/** A table padded as formatters pad them, so the rendered README reads well as text too. */
function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(" | ")} |`;
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join("\n");
}
