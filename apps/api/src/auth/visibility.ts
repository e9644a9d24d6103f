import { type Db, sameServer, schema } from "@dbmon/datastore";
import { type AnyColumn, type SQL, sql } from "drizzle-orm";
import { Forbidden, NotFound } from "../errors.js";
import type { RequestAccess } from "./access.js";

const { alerts, clusterGroups, clusters, connections } = schema;

/** Where `alertConnection` puts its parameter in the rule's text. */
const IDS = "\u0000ids\u0000";

/**
 * The connections an alert is seen through, as a relation `(id)` for the alert row `alert` (SQL
 * text): its own connection, and for a whole-server alert (`server_wide`, kept once per server under
 * the connection that speaks for it) every monitored connection at its server's address
 * (`sameServer`). Whoever sees one of them sees the alert. The one rule of alert visibility, in list
 * filters, counts, checks of one alert, the timeline and the overview.
 */
export function alertConnections(alert: string): string {
  return `(select ${alert}.connection_id as id
    union select v.id from public.connections s join public.connections v on ${sameServer("s", "v")}
      where ${alert}.server_wide and s.id = ${alert}.connection_id and v.is_monitored)`;
}

/**
 * The connection through which an alert is seen among the connections `ids` (SQL text of an int[];
 * null: every connection): its own when among them, else the lowest of them it is seen through
 * (`alertConnections`); null when none. An alert is listed once, under that connection: a caller
 * who sees only another connection of a server sees the server's alert under that connection.
 */
export function alertSeenThrough(alert: string, ids: string): string {
  return `(case when ${ids} is null or ${alert}.connection_id = any(${ids}) then ${alert}.connection_id
    else (select min(r.id) from ${alertConnections(alert)} r where r.id = any(${ids})) end)`;
}

/** `column` is one of `ids`, passed as one array parameter however many ids there are. */
export function oneOf(column: AnyColumn | SQL, ids: Iterable<number>): SQL {
  return sql`${column} = any(${sql.param([...ids])}::int[])`;
}

export type ScopeKind = "server" | "cluster" | "group";

/**
 * Where a scoped row (a blackout, a schedule, a per-scope setting) applies: the estate, a cluster
 * group, a cluster or a server, with the one id its kind needs. As columns of a table for list
 * queries, or as values for one scope.
 */
export interface ScopeOf<T> {
  scope: T;
  groupId: T;
  clusterId: T;
  connectionId: T;
}

export type ScopedColumns = ScopeOf<AnyColumn>;

export type ScopeRef = {
  scope: "estate" | ScopeKind;
  groupId: number | null;
  clusterId: number | null;
  connectionId: number | null;
};

/** The scope a stored blackout, schedule or setting applies to (its table checks `scope`). */
export function storedScope(row: {
  scope: string;
  groupId: number | null;
  clusterId: number | null;
  connectionId: number | null;
}): ScopeRef {
  return {
    scope: row.scope as ScopeRef["scope"],
    groupId: row.groupId,
    clusterId: row.clusterId,
    connectionId: row.connectionId,
  };
}

/** The scope of one kind and id, as a `ScopeRef`. */
export function scopeRef(kind: ScopeKind, id: number): ScopeRef {
  return {
    scope: kind,
    groupId: kind === "group" ? id : null,
    clusterId: kind === "cluster" ? id : null,
    connectionId: kind === "server" ? id : null,
  };
}

/**
 * What a caller sees, as SQL conditions that queries compose: one lookup of the caller's access,
 * then filtering and paging in the datastore, whatever the number of rows.
 *
 * The rule for scoped rows, whether they are listed, read, changed, deleted or created: a caller
 * sees the estate, and a server, cluster or group that holds a connection it can see. Unscoped
 * superusers see every scope. `scoped` is that rule for the rows of a table, `requireScope` for
 * one scope; both are the same SQL.
 */
export class Visibility {
  private constructor(
    /** Unscoped superusers see every row (a scoped superuser token does not). */
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

  /**
   * The connection the caller sees each row of `alerts` through (`alertSeenThrough`), among
   * `only` when given (a filter by connection): null for an alert it does not see.
   */
  alertConnection(only?: readonly number[]): SQL {
    const hidden = !(this.superuser || this.allConnections);
    const ids =
      only && hidden
        ? only.filter((id) => this.connectionIds.includes(id))
        : hidden
          ? this.connectionIds
          : only;
    if (ids === undefined) {
      return sql`${alerts.connectionId}`;
    }
    // The ids appear twice in the text: the same parameter each time.
    const parts = alertSeenThrough("alerts", IDS).split(IDS);
    return sql.join(
      parts.map((part) => sql.raw(part)),
      sql`${sql.param([...ids])}::int[]`,
    );
  }

  /** Rows whose connection column names a visible connection; undefined when nothing is hidden. */
  connection(column: AnyColumn): SQL | undefined {
    return this.superuser || this.allConnections ? undefined : this.among(column);
  }

  /**
   * Rows scoped to the estate, or to a server, cluster or group that holds a visible connection;
   * undefined for superusers.
   */
  scoped(row: ScopeOf<AnyColumn | SQL>): SQL | undefined {
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
   * Whether the scope exists and the caller sees it (the estate always, without a query). A scope
   * that does not exist is seen by nobody, superusers included: every scoped thing answers a
   * missing scope as it answers a hidden one.
   */
  async seesScope(db: Db, target: ScopeRef): Promise<boolean> {
    if (target.scope === "estate") {
      return true;
    }
    const condition = this.scoped(valuesOf(target)) ?? sql`true`;
    const [row] = await db.execute<{ visible: boolean }>(
      sql`select ${scopeExists(target)} and ${condition} as visible`,
    );
    return row?.visible === true;
  }

  /**
   * Anything scoped, read or written (blackouts, schedules, and the per-scope settings: alert,
   * channel and probe overrides): a scope the caller cannot see, or that does not exist, is not
   * found (with `notFound` as the message).
   */
  async requireScope(db: Db, target: ScopeRef, notFound: string): Promise<void> {
    if (!(await this.seesScope(db, target))) {
      throw new NotFound(notFound);
    }
  }

  /**
   * What may be changed on a scope (a blackout or schedule created, changed or removed there, an
   * override set or removed): only a scope all of whose connections the caller sees. Seeing one
   * server of a cluster must not let a caller silence, or change the alerting of, servers hidden
   * from it; the estate counts as every connection. Refused with 403: the scope itself is visible.
   */
  async requireWholeScope(db: Db, target: ScopeRef): Promise<void> {
    if (this.superuser || this.allConnections) {
      return;
    }
    const [row] = await db.execute<{ hidden: boolean }>(
      sql`select exists (select 1 from ${connections}
        left join ${clusters} on ${clusters.id} = ${connections.clusterId}
        where ${scopeMembers(target)} and not ${this.among(connections.id)}) as hidden`,
    );
    if (row?.hidden) {
      throw new Forbidden(
        `Permission denied: the ${target.scope} holds connections you cannot see, so it cannot be changed`,
      );
    }
  }

  private among(column: AnyColumn | SQL): SQL {
    return oneOf(column, this.connectionIds);
  }
}

/**
 * The one check of the per-scope settings (alert, channel and probe overrides), for every verb: the
 * scope must exist and the caller must see it, otherwise it is not found with `notFound`; to change
 * a setting, the caller must also see every connection of the scope (`requireWholeScope`).
 */
export async function requireSettingsScope(
  db: Db,
  access: RequestAccess,
  scope: ScopeKind,
  scopeId: number,
  purpose: "read" | "change",
  notFound: string,
): Promise<void> {
  const visibility = await Visibility.of(access);
  const target = scopeRef(scope, scopeId);
  await visibility.requireScope(db, target, notFound);
  if (purpose === "change") {
    await visibility.requireWholeScope(db, target);
  }
}

/** The connections a scope covers, as a condition on `connections` joined with its cluster. */
function scopeMembers(target: ScopeRef): SQL {
  switch (target.scope) {
    case "estate":
      return sql`true`;
    case "server":
      return sql`${connections.id} = ${target.connectionId}`;
    case "cluster":
      return sql`${connections.clusterId} = ${target.clusterId}`;
    case "group":
      return sql`${clusters.groupId} = ${target.groupId}`;
  }
}

/** Whether the server, cluster or group a scope names exists. */
function scopeExists(target: ScopeRef): SQL {
  if (target.scope === "server") {
    return sql`exists (select 1 from ${connections} where ${connections.id} = ${target.connectionId})`;
  }
  if (target.scope === "cluster") {
    return sql`exists (select 1 from ${clusters} where ${clusters.id} = ${target.clusterId})`;
  }
  return sql`exists (select 1 from ${clusterGroups} where ${clusterGroups.id} = ${target.groupId})`;
}

/** A scope's values, typed for SQL, in place of a row's columns. */
function valuesOf(target: ScopeRef): ScopeOf<SQL> {
  return {
    scope: sql`${target.scope}::text`,
    groupId: sql`${target.groupId}::int`,
    clusterId: sql`${target.clusterId}::int`,
    connectionId: sql`${target.connectionId}::int`,
  };
}
