import type { ProbeConfigSchema, ProbeOverrideSchema } from "@dbmon/contract";
import { connectionPlacements, type Datastore, resolveProbeConfig } from "@dbmon/datastore";
import type { z } from "@hono/zod-openapi";
import type { RequestAccess } from "../auth/access.js";
import { requireSettingsScope, type ScopeKind } from "../auth/visibility.js";
import { NotFound } from "../errors.js";

/** A probe setting as the API shows it: `connection_id` for server-scope rows, timestamps as text. */
export type ProbeConfigView = z.output<typeof ProbeConfigSchema>;
/** A probe's global default side by side with one scope's override. */
export type ProbeOverrideView = z.output<typeof ProbeOverrideSchema>;

/** The fields of a setting to change; absent ones stay. */
export interface ProbeSettingsChange {
  is_enabled?: boolean | undefined;
  collection_interval_seconds?: number | undefined;
  retention_days?: number | undefined;
}

/** Every field of an override. */
export interface ProbeOverrideSettings {
  is_enabled: boolean;
  collection_interval_seconds: number;
  retention_days: number;
}

/** Select list of a ProbeConfigView from `probe_configs p` (timestamps as ISO 8601 text). */
const PROBE_CONFIG_COLUMNS = `p.id, case when p.scope = 'server' then p.scope_id end as connection_id,
  p.is_enabled, p.name, p.description, p.collection_interval_seconds, p.retention_days,
  to_json(p.created_at) #>> '{}' as created_at, to_json(p.updated_at) #>> '{}' as updated_at`;

const CONFIG_NOT_FOUND = "Probe config not found";
const SCOPE_NOT_FOUND = "Probe override scope not found";

/**
 * Probe configuration: the global defaults, the settings that apply to a connection, and overrides
 * per server, cluster or cluster group (collectors apply them at their next reload).
 */
export class ProbeSettings {
  constructor(private readonly datastore: Datastore) {}

  /**
   * Without a connection: the global default of every probe. With one (the caller must be able to
   * read it): the setting that applies to it, one per probe. Ordered by name.
   */
  async list(access: RequestAccess, connectionId?: number): Promise<ProbeConfigView[]> {
    const { sql } = this.datastore;
    if (connectionId === undefined) {
      return sql.unsafe<ProbeConfigView[]>(
        `select ${PROBE_CONFIG_COLUMNS} from probe_configs p where p.scope = 'global' order by p.name`,
      );
    }
    await access.require({ connection: { query: "connection_id", level: "read" } }, connectionId);
    const [rows, placements] = await Promise.all([
      sql.unsafe<
        (ProbeConfigView & { scope: "global" | "group" | "cluster" | "server"; scope_id: number })[]
      >(`select ${PROBE_CONFIG_COLUMNS}, p.scope, p.scope_id from probe_configs p order by p.name, p.id`),
      connectionPlacements(sql, [connectionId]),
    ]);
    const placement = placements.get(connectionId) ?? { clusterId: null, groupId: null };
    const names = [...new Set(rows.filter((row) => row.scope === "global").map((row) => row.name))];
    return names.flatMap((name) => {
      const row = resolveProbeConfig(
        rows.filter((candidate) => candidate.name === name),
        connectionId,
        placement,
      );
      if (!row) {
        return [];
      }
      const { scope: _scope, scope_id: _scopeId, ...config } = row;
      return [config];
    });
  }

  async get(id: number): Promise<ProbeConfigView> {
    const [row] = await this.datastore.sql.unsafe<ProbeConfigView[]>(
      `select ${PROBE_CONFIG_COLUMNS} from probe_configs p where p.id = $1`,
      [id],
    );
    if (!row) {
      throw new NotFound(CONFIG_NOT_FOUND);
    }
    return row;
  }

  async update(id: number, change: ProbeSettingsChange): Promise<ProbeConfigView> {
    const [row] = await this.datastore.sql.unsafe<ProbeConfigView[]>(
      `update probe_configs p set
         is_enabled = coalesce($2, p.is_enabled),
         collection_interval_seconds = coalesce($3, p.collection_interval_seconds),
         retention_days = coalesce($4, p.retention_days),
         user_modified = true,
         updated_at = now()
       where p.id = $1
       returning ${PROBE_CONFIG_COLUMNS}`,
      [
        id,
        change.is_enabled ?? null,
        change.collection_interval_seconds ?? null,
        change.retention_days ?? null,
      ],
    );
    if (!row) {
      throw new NotFound(CONFIG_NOT_FOUND);
    }
    return row;
  }

  /** Every probe with its global default and the scope's override, if any. */
  async listOverrides(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
  ): Promise<ProbeOverrideView[]> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "read", SCOPE_NOT_FOUND);
    return this.datastore.sql<ProbeOverrideView[]>`
      select g.name, g.description, g.is_enabled as default_enabled,
        g.collection_interval_seconds as default_interval_seconds, g.retention_days as default_retention_days,
        o.id is not null as has_override, o.is_enabled as override_enabled,
        o.collection_interval_seconds as override_interval_seconds, o.retention_days as override_retention_days
      from probe_configs g
      left join probe_configs o on o.name = g.name and o.scope = ${scope} and o.scope_id = ${scopeId}
      where g.scope = 'global'
      order by g.name`;
  }

  /** Creates or replaces the scope's override of a probe. */
  async saveOverride(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
    probeName: string,
    settings: ProbeOverrideSettings,
  ): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    await this.requireKnownProbe(probeName);
    await this.datastore.sql`
      insert into probe_configs (name, description, collection_interval_seconds, retention_days, is_enabled,
        scope, scope_id, user_modified)
      select name, description, ${settings.collection_interval_seconds}, ${settings.retention_days},
        ${settings.is_enabled}, ${scope}, ${scopeId}, true
      from probe_configs where scope = 'global' and name = ${probeName}
      on conflict (name, scope, scope_id) do update set
        collection_interval_seconds = excluded.collection_interval_seconds,
        retention_days = excluded.retention_days,
        is_enabled = excluded.is_enabled,
        user_modified = true,
        updated_at = now()`;
  }

  /** Removes the scope's override of a probe (having none is fine): the scope inherits again. */
  async deleteOverride(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
    probeName: string,
  ): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    await this.requireKnownProbe(probeName);
    await this.datastore.sql`
      delete from probe_configs where name = ${probeName} and scope = ${scope} and scope_id = ${scopeId}`;
  }

  /** Not found unless the probe is in the catalogue (has a global default). */
  private async requireKnownProbe(name: string): Promise<void> {
    const [row] = await this.datastore.sql`
      select 1 from probe_configs where scope = 'global' and name = ${name}`;
    if (!row) {
      throw new NotFound("Probe not found");
    }
  }
}
