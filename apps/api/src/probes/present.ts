import type { CollectionSettings, ProbeConfig, ProbeOverride } from "./service.js";

/** A probe setting as the wire shows it: `connection_id` for server-scope rows. */
export function presentProbeConfig(config: ProbeConfig) {
  return {
    id: config.id,
    connection_id: config.scope === "server" ? config.scopeId : null,
    is_enabled: config.isEnabled,
    name: config.name,
    description: config.description,
    collection_interval_seconds: config.collectionIntervalSeconds,
    retention_days: config.retentionDays,
    include_system_catalogs: config.includeSystemCatalogs,
    created_at: config.createdAt.toISOString(),
    updated_at: config.updatedAt.toISOString(),
  };
}

/** A probe's default and a scope's override as the wire shows them (the override's fields null without one). */
export function presentProbeOverride({ global, override }: ProbeOverride) {
  return {
    name: global.name,
    description: global.description,
    default_enabled: global.isEnabled,
    default_interval_seconds: global.collectionIntervalSeconds,
    default_retention_days: global.retentionDays,
    default_include_system_catalogs: global.includeSystemCatalogs,
    has_override: override !== null,
    override_enabled: override?.isEnabled ?? null,
    override_interval_seconds: override?.collectionIntervalSeconds ?? null,
    override_retention_days: override?.retentionDays ?? null,
    override_include_system_catalogs: override?.includeSystemCatalogs ?? null,
  };
}

interface WireSettings {
  is_enabled: boolean;
  collection_interval_seconds: number;
  retention_days: number;
  include_system_catalogs?: boolean;
}

/** The settings of a wire body (an override's, all given; a change's, each optional). */
export function settingsOf(body: WireSettings): CollectionSettings;
export function settingsOf(body: Partial<WireSettings>): Partial<CollectionSettings>;
export function settingsOf(body: Partial<WireSettings>): Partial<CollectionSettings> {
  return {
    isEnabled: body.is_enabled,
    collectionIntervalSeconds: body.collection_interval_seconds,
    retentionDays: body.retention_days,
    includeSystemCatalogs: body.include_system_catalogs,
  };
}
