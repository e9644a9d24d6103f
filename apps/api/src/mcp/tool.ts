import type { z } from "zod";
import type { RequestAccess } from "../auth/access.js";
import type { Services } from "../services.js";

/** An MCP tool result: text content, flagged when the tool refused or failed. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  isError?: true;
}

/** What a tool runs with: the caller, the services the REST API uses, and the request's abort signal. */
export interface ToolContext {
  access: RequestAccess;
  services: Services;
  signal: AbortSignal;
}

/**
 * One tool of the catalogue. `privilege` is the MCP item a caller needs (see auth/model.ts
 * `mcpItems`), or `null` for a tool every authenticated caller may use (test_query, as the
 * reference has it). Tools bound to a connection check access to it themselves, through
 * `boundConnection`.
 */
export interface Tool<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  /** For capable LLMs: what the tool returns and when to use it. */
  description: string;
  /** One line for small local models. */
  compactDescription: string;
  input: S;
  privilege: string | null;
  run(context: ToolContext, args: z.output<z.ZodObject<S>>): Promise<ToolResult>;
}

export interface ToolDescriptor {
  name: string;
  description: string;
  compactDescription: string;
  inputSchema: { type: "object"; properties: Record<string, unknown>; required?: string[] };
}

/**
 * The catalogue as the services hold it: listing and calling tools. (Its class, in catalogue.ts,
 * imports every tool, which the services' type must not.)
 */
export interface Tools {
  list(access: RequestAccess): Promise<ToolDescriptor[]>;
  call(context: ToolContext, name: string, args: unknown): Promise<ToolResult>;
}

/** Keeps each tool's argument type tied to its own schema. */
export function defineTool<S extends z.ZodRawShape>(tool: Tool<S>): Tool {
  return tool as unknown as Tool;
}

export function text(body: string): ToolResult {
  return { content: [{ type: "text", text: body }] };
}

export function failure(body: string): ToolResult {
  return { content: [{ type: "text", text: body }], isError: true };
}

/** One TSV cell: tabs and line breaks escaped so that every row stays one line; NULL for null. */
function cell(value: unknown): string {
  if (value === null || value === undefined) {
    return "NULL";
  }
  const raw = typeof value === "object" ? JSON.stringify(value) : String(value);
  return raw.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\r?\n/g, "\\n");
}

/** A header line and one line per row, tab-separated. */
export function tsv(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [columns.map(cell).join("\t"), ...rows.map((row) => row.map(cell).join("\t"))].join("\n");
}

/** TSV of objects of one shape (the keys of the first object are the columns). */
export function tsvOfObjects(objects: readonly Record<string, unknown>[], empty: string): string {
  const first = objects[0];
  if (!first) {
    return empty;
  }
  const columns = Object.keys(first);
  return tsv(
    columns,
    objects.map((object) => columns.map((column) => object[column])),
  );
}

/**
 * One page of a listing: the number of all the rows that match (`12 alert(s)`), then the page's
 * rows as TSV, or `empty` when the page has none.
 */
export function tsvPage(
  total: number,
  noun: string,
  rows: readonly Record<string, unknown>[],
  empty: string,
): string {
  return `${total} ${noun}(s)\n${tsvOfObjects(rows, empty)}`;
}
