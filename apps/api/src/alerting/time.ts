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

/** A non-negative integer from a query string, or undefined (malformed values are ignored). */
export function queryInt(text: string | undefined): number | undefined {
  return text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** limit/offset of a list: default 100, at most 1000. */
export function page(
  limit: string | undefined,
  offset: string | undefined,
): { limit: number; offset: number } {
  const wanted = queryInt(limit);
  return { limit: wanted && wanted > 0 ? Math.min(wanted, 1000) : 100, offset: queryInt(offset) ?? 0 };
}
