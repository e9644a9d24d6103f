import { llmEnvironmentVariables } from "@dbmon/llm";
import { z } from "zod";
import { environmentVariables } from "./config.js";

/** The README's configuration table lies between these lines, rendered by `pnpm readme`. */
export const TABLE_START = "<!-- configuration table: rendered from the config schema by `pnpm readme` -->";
export const TABLE_END = "<!-- end of configuration table -->";

/** One row per variable the configuration reads: its name, default and meaning, from the schemas. */
export function renderConfigurationTable(): string {
  const rows = [
    ...Object.entries(environmentVariables.shape),
    ...Object.entries(llmEnvironmentVariables.shape),
  ].map(([name, schema]: [string, z.ZodType]) => {
    if (!schema.description) {
      throw new Error(`${name} has no description in the config schema`);
    }
    return [`\`${name}\``, defaultOf(schema), schema.description];
  });
  return markdownTable(["Variable", "Default", "Meaning"], rows);
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
