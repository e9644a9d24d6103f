import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";

/** `column` is one of `ids`, passed as one array parameter however many ids there are. */
export function oneOf(column: AnyColumn, ids: Iterable<number>): SQL {
  return sql`${column} = any(${sql.param([...ids])}::int[])`;
}

/**
 * The caller's visible connections as a condition on a connection id column, for list queries to
 * compose; undefined when the caller sees every connection.
 */
export async function visibleConnectionFilter(
  access: RequestAccess,
  column: AnyColumn,
): Promise<SQL | undefined> {
  const visible = await access.visibleConnections();
  return visible.all ? undefined : oneOf(column, visible.ids);
}
