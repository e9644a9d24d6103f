/** One page of a list: at most `limit` rows after skipping `offset`. */
export interface Page {
  limit: number;
  offset: number;
}

/** The page a listing's wire query asks for: `limit` 100 by default, at most 1000; `offset` 0. */
export function pageOf(limit: number | undefined, offset: number | undefined): Page {
  return { limit: limit && limit > 0 ? Math.min(limit, 1000) : 100, offset: offset ?? 0 };
}

/**
 * One page of rows and the number of all the rows that match, both from SQL: the page's query
 * (ordered, limited, offset) and the count over the same conditions run together.
 */
export async function withTotal<Row>(
  rows: PromiseLike<Row[]>,
  counted: PromiseLike<{ n: number }[]>,
): Promise<{ rows: Row[]; total: number }> {
  const [found, [total]] = await Promise.all([rows, counted]);
  return { rows: found, total: total?.n ?? 0 };
}
