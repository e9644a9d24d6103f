import { type Paging, pageSize } from "@dbmon/contract";

/** One page of a list: at most `limit` rows after skipping `offset`. */
export interface Page {
  limit: number;
  offset: number;
}

/** The page a listing's wire query asks for, sized as the contract's `paging` says; `offset` 0 by default. */
export function pageOf(limit: number | undefined, offset: number | undefined, paging: Paging): Page {
  return { limit: pageSize(limit, paging), offset: offset ?? 0 };
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
