import { InvalidInput } from "../errors.js";

/** A timestamp from the datastore (a Date from Drizzle, a string from raw queries) as ISO 8601 UTC. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 timestamp, or undefined when the text is not one. */
export function parseRfc3339(text: string | undefined): Date | undefined {
  if (text === undefined || !RFC3339.test(text)) {
    return undefined;
  }
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A body's RFC 3339 time field, as the reference refuses one that is not. */
export function timeField(value: string, name: string): Date {
  const time = parseRfc3339(value);
  if (!time) {
    throw new InvalidInput(`Invalid ${name} format, expected RFC3339`);
  }
  return time;
}
