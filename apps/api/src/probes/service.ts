import {
  connectionPlacements,
  type Datastore,
  type ProbeConfigScope,
  resolveProbeConfig,
  schema,
} from "@dbmon/datastore";
import { and, asc, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { RequestAccess } from "../auth/access.js";
import { requireSettingsScope, type ScopeKind } from "../auth/visibility.js";
import { InvalidInput, NotFound } from "../errors.js";

const { probeConfigs } = schema;

/** A probe setting: the global default (scope `global`) or one scope's override. */
export type ProbeConfig = typeof probeConfigs.$inferSelect;

/** How a probe is collected on the connections a setting applies to. */
export interface CollectionSettings {
  isEnabled: boolean;
  collectionIntervalSeconds: number;
  retentionDays: number;
  /** Only for a probe with system catalogs to leave out; absent in an override: the global default's. */
  includeSystemCatalogs?: boolean;
}

/** The fields of a setting to change; absent ones stay. */
export type CollectionSettingsChange = Partial<CollectionSettings>;

/** A probe's global default side by side with one scope's override (null: the scope inherits). */
export interface ProbeOverride {
  global: ProbeConfig;
  override: ProbeConfig | null;
}

const CONFIG_NOT_FOUND = "Probe config not found";
const SCOPE_NOT_FOUND = "Probe override scope not found";
const NO_SYSTEM_CATALOGS = "include_system_catalogs applies only to a probe that lists system catalogs";

/** Refuses a system catalogs setting for a probe without any to leave out (its value is null). */
function requireSystemCatalogsSetting(settings: CollectionSettingsChange, current: boolean | null): void {
  if (settings.includeSystemCatalogs !== undefined && current === null) {
    throw new InvalidInput(NO_SYSTEM_CATALOGS);
  }
}

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
  async list(access: RequestAccess, connectionId?: number): Promise<ProbeConfig[]> {
    const { db, sql: client } = this.datastore;
    if (connectionId === undefined) {
      return db
        .select()
        .from(probeConfigs)
        .where(eq(probeConfigs.scope, "global"))
        .orderBy(probeConfigs.name);
    }
    await access.require({ connection: { query: "connection_id", level: "read" } }, connectionId);
    const [rows, placements] = await Promise.all([
      db.select().from(probeConfigs).orderBy(probeConfigs.name, probeConfigs.id),
      connectionPlacements(client, [connectionId]),
    ]);
    const placement = placements.get(connectionId) ?? { clusterId: null, groupId: null };
    const candidates = rows.map((config) => ({
      config,
      scope: config.scope as ProbeConfigScope,
      scope_id: config.scopeId,
    }));
    const names = [...new Set(rows.filter((row) => row.scope === "global").map((row) => row.name))];
    return names.flatMap((name) => {
      const applying = resolveProbeConfig(
        candidates.filter((candidate) => candidate.config.name === name),
        connectionId,
        placement,
      );
      return applying ? [applying.config] : [];
    });
  }

  async get(id: number): Promise<ProbeConfig> {
    const [row] = await this.datastore.db.select().from(probeConfigs).where(eq(probeConfigs.id, id));
    if (!row) {
      throw new NotFound(CONFIG_NOT_FOUND);
    }
    return row;
  }

  async update(id: number, change: CollectionSettingsChange): Promise<ProbeConfig> {
    requireSystemCatalogsSetting(change, (await this.get(id)).includeSystemCatalogs);
    const [row] = await this.datastore.db
      .update(probeConfigs)
      .set({ ...change, userModified: true, updatedAt: sql`now()` })
      .where(eq(probeConfigs.id, id))
      .returning();
    if (!row) {
      throw new NotFound(CONFIG_NOT_FOUND);
    }
    return row;
  }

  /** Every probe with its global default and the scope's override, if any. */
  async listOverrides(access: RequestAccess, scope: ScopeKind, scopeId: number): Promise<ProbeOverride[]> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "read", SCOPE_NOT_FOUND);
    const override = alias(probeConfigs, "o");
    return this.datastore.db
      .select({ global: probeConfigs, override })
      .from(probeConfigs)
      .leftJoin(
        override,
        and(eq(override.name, probeConfigs.name), eq(override.scope, scope), eq(override.scopeId, scopeId)),
      )
      .where(eq(probeConfigs.scope, "global"))
      .orderBy(asc(probeConfigs.name));
  }

  /** Creates or replaces the scope's override of a probe. */
  async saveOverride(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
    probeName: string,
    settings: CollectionSettings,
  ): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    requireSystemCatalogsSetting(settings, await this.knownProbeSystemCatalogs(probeName));
    await this.datastore.sql`
      insert into probe_configs (name, description, collection_interval_seconds, retention_days, is_enabled,
        include_system_catalogs, scope, scope_id, user_modified)
      select name, description, ${settings.collectionIntervalSeconds}, ${settings.retentionDays},
        ${settings.isEnabled}, coalesce(${settings.includeSystemCatalogs ?? null}::boolean, include_system_catalogs),
        ${scope}, ${scopeId}, true
      from probe_configs where scope = 'global' and name = ${probeName}
      on conflict (name, scope, scope_id) do update set
        collection_interval_seconds = excluded.collection_interval_seconds,
        retention_days = excluded.retention_days,
        is_enabled = excluded.is_enabled,
        include_system_catalogs = excluded.include_system_catalogs,
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
    await this.knownProbeSystemCatalogs(name);
  }

  /** The global default's `include_system_catalogs` of a probe in the catalogue; not found otherwise. */
  private async knownProbeSystemCatalogs(name: string): Promise<boolean | null> {
    const [row] = await this.datastore.sql<{ include_system_catalogs: boolean | null }[]>`
      select include_system_catalogs from probe_configs where scope = 'global' and name = ${name}`;
    if (!row) {
      throw new NotFound("Probe not found");
    }
    return row.include_system_catalogs;
  }
}
