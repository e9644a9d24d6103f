import { type Db, schema } from "@dbmon/datastore";
import { type Column, inArray, type SQL, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { NotFound } from "../errors.js";

const { clusters, connections } = schema;

/** Columns of a row that applies to a scope: the estate, a cluster group, a cluster or a server. */
export interface ScopedColumns {
  scope: Column;
  groupId: Column;
  clusterId: Column;
  connectionId: Column;
}

export type ScopeKind = "server" | "cluster" | "group";

/**
 * What a caller sees, as SQL conditions that list queries compose: one lookup of the caller's
 * access, then filtering and paging in the datastore, whatever the number of rows.
 */
export class Visibility {
  private constructor(
    /** Superusers see every row, scoped ones included. */
    private readonly superuser: boolean,
    /** Whether every connection is visible (nothing to filter on connection columns). */
    private readonly allConnections: boolean,
    private readonly connectionIds: readonly number[],
  ) {}

  static async of(access: RequestAccess): Promise<Visibility> {
    if (await access.isSuperuser()) {
      return new Visibility(true, true, []);
    }
    const visible = await access.visibleConnections();
    return new Visibility(false, visible.all, visible.ids);
  }

  /** Rows whose connection column names a visible connection; undefined when nothing is hidden. */
  connection(column: Column): SQL | undefined {
    return this.superuser || this.allConnections ? undefined : this.among(column);
  }

  /**
   * Rows scoped to the estate, or to a server, cluster or group that holds a visible connection;
   * undefined for superusers.
   */
  scoped(row: ScopedColumns): SQL | undefined {
    if (this.superuser) {
      return undefined;
    }
    return sql`(${row.scope} = 'estate'
      or (${row.scope} = 'server' and ${this.among(row.connectionId)})
      or (${row.scope} = 'cluster' and exists (
        select 1 from ${connections} where ${connections.clusterId} = ${row.clusterId}
          and ${this.among(connections.id)}))
      or (${row.scope} = 'group' and exists (
        select 1 from ${connections} join ${clusters} on ${clusters.id} = ${connections.clusterId}
        where ${clusters.groupId} = ${row.groupId} and ${this.among(connections.id)})))`;
  }

  /**
   * Reads and writes of per-scope settings alike: a scope without a connection the caller sees
   * is not found (with `notFound` as the message).
   */
  static async requireScope(
    access: RequestAccess,
    db: Db,
    kind: ScopeKind,
    scopeId: number,
    notFound: string,
  ): Promise<void> {
    const visibility = await Visibility.of(access);
    if (!(await visibility.seesScope(db, kind, scopeId))) {
      throw new NotFound(notFound);
    }
  }

  /** Whether the caller sees a connection of the scope (superusers see every scope). */
  async seesScope(db: Db, kind: ScopeKind, scopeId: number): Promise<boolean> {
    if (this.superuser) {
      return true;
    }
    const [row] = await db.execute<{ visible: boolean }>(sql`select ${this.scope(kind, scopeId)} as visible`);
    return row?.visible === true;
  }

  private scope(kind: ScopeKind, scopeId: number): SQL {
    if (kind === "server") {
      return sql`exists (select 1 from ${connections} where ${connections.id} = ${scopeId}
        and ${this.among(connections.id)})`;
    }
    if (kind === "cluster") {
      return sql`exists (select 1 from ${connections} where ${connections.clusterId} = ${scopeId}
        and ${this.among(connections.id)})`;
    }
    return sql`exists (select 1 from ${connections} join ${clusters} on ${clusters.id} = ${connections.clusterId}
      where ${clusters.groupId} = ${scopeId} and ${this.among(connections.id)})`;
  }

  private among(column: Column): SQL {
    return this.connectionIds.length === 0 ? sql`false` : inArray(column, [...this.connectionIds]);
  }
}
