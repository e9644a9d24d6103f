import { type Datastore, schema } from "@dbmon/datastore";
import { and, asc, eq, sql } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { requireSettingsScope, type ScopeKind } from "../auth/visibility.js";
import type { NotificationChannelService } from "./channels.js";

const { notificationChannels, notificationChannelOverrides: overrides } = schema;

const SCOPE_NOT_FOUND = "Channel override scope not found";

/** Per-scope switches of notification channels (server > cluster > group > estate default). */
export class ChannelOverrideService {
  constructor(
    private readonly datastore: Datastore,
    private readonly channels: NotificationChannelService,
  ) {}

  /** Every enabled channel with the scope's override, if any; a scope the caller cannot see is not found. */
  async list(access: RequestAccess, scope: ScopeKind, scopeId: number) {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "read", SCOPE_NOT_FOUND);
    const rows = await this.datastore.db
      .select({ channel: notificationChannels, override: overrides })
      .from(notificationChannels)
      .leftJoin(overrides, and(eq(overrides.channelId, notificationChannels.id), this.at(scope, scopeId)))
      .where(eq(notificationChannels.enabled, true))
      .orderBy(asc(notificationChannels.name), asc(notificationChannels.id));
    return rows.map(({ channel, override }) => ({
      channel_id: channel.id,
      channel_name: channel.name,
      channel_type: channel.channelType,
      description: channel.description,
      is_estate_default: channel.isEstateDefault,
      has_override: override !== null,
      override_enabled: override?.enabled ?? null,
    }));
  }

  /** Switches a channel on or off for a scope; a scope the caller cannot see is not found. */
  async upsert(
    access: RequestAccess,
    scope: ScopeKind,
    scopeId: number,
    channelId: number,
    enabled: boolean,
  ): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    await this.channels.requireChannel(channelId);
    await this.datastore.db
      .insert(overrides)
      .values({ channelId, scope, scopeId, enabled })
      .onConflictDoUpdate({
        target: [overrides.channelId, overrides.scope, overrides.scopeId],
        set: { enabled, updatedAt: sql`now()` },
      });
  }

  /** Removes a scope's switch (having none is fine); a scope the caller cannot see is not found. */
  async remove(access: RequestAccess, scope: ScopeKind, scopeId: number, channelId: number): Promise<void> {
    await requireSettingsScope(this.datastore.db, access, scope, scopeId, "change", SCOPE_NOT_FOUND);
    await this.datastore.db
      .delete(overrides)
      .where(and(eq(overrides.channelId, channelId), this.at(scope, scopeId)));
  }

  private at(scope: ScopeKind, scopeId: number) {
    return and(eq(overrides.scope, scope), eq(overrides.scopeId, scopeId));
  }
}
