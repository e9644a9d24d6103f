import { advisoryLocks, type Datastore, schema } from "@dbmon/datastore";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { Conflict, InvalidInput, NotFound } from "../errors.js";
import { type AccessLevel, WILDCARD } from "./model.js";

const {
  rbacGroups,
  groupMemberships,
  users,
  groupMcpPrivileges,
  groupConnectionPrivileges,
  groupAdminPermissions,
  mcpPrivilegeIdentifiers,
} = schema;

export type Group = typeof rbacGroups.$inferSelect;
export type ConnectionGrant = typeof groupConnectionPrivileges.$inferSelect;

export interface Grants {
  permissions: string[];
  mcp: string[];
  connections: { connectionId: number; accessLevel: AccessLevel }[];
}

/** Groups, nested memberships and the grants groups hold. */
export class GroupDirectory {
  constructor(private readonly datastore: Datastore) {}

  async list(): Promise<(Group & { memberCount: number })[]> {
    return this.datastore.db
      .select({
        id: rbacGroups.id,
        name: rbacGroups.name,
        description: rbacGroups.description,
        createdAt: rbacGroups.createdAt,
        // Written out: drizzle would leave the outer column unqualified inside the subquery.
        memberCount: sql<number>`(select count(*)::int from group_memberships m where m.parent_group_id = rbac_groups.id)`,
      })
      .from(rbacGroups)
      .orderBy(asc(rbacGroups.name));
  }

  async byId(id: number): Promise<Group | undefined> {
    const [row] = await this.datastore.db.select().from(rbacGroups).where(eq(rbacGroups.id, id));
    return row;
  }

  /** The group, or NotFound. */
  async require(id: number): Promise<Group> {
    const group = await this.byId(id);
    if (!group) {
      throw new NotFound("Group not found");
    }
    return group;
  }

  async byName(name: string): Promise<Group | undefined> {
    const [row] = await this.datastore.db.select().from(rbacGroups).where(eq(rbacGroups.name, name));
    return row;
  }

  async memberCount(id: number): Promise<number> {
    const [row] = await this.datastore.db
      .select({ n: sql<number>`count(*)::int` })
      .from(groupMemberships)
      .where(eq(groupMemberships.parentGroupId, id));
    return row?.n ?? 0;
  }

  async create(name: string, description: string): Promise<Group> {
    const [row] = await this.datastore.db
      .insert(rbacGroups)
      .values({ name, description })
      .onConflictDoNothing({ target: rbacGroups.name })
      .returning();
    if (!row) {
      throw new Conflict("A group with this name already exists");
    }
    return row;
  }

  async update(
    id: number,
    changes: { name?: string | undefined; description?: string | undefined },
  ): Promise<Group> {
    try {
      const [row] = await this.datastore.db
        .update(rbacGroups)
        .set({ name: changes.name, description: changes.description })
        .where(eq(rbacGroups.id, id))
        .returning();
      if (!row) {
        throw new NotFound("Group not found");
      }
      return row;
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new Conflict("A group with this name already exists");
      }
      throw error;
    }
  }

  async delete(id: number): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(rbacGroups)
      .where(eq(rbacGroups.id, id))
      .returning({ id: rbacGroups.id });
    return deleted.length > 0;
  }

  async members(id: number): Promise<{ users: string[]; groups: string[] }> {
    const rows = await this.datastore.db
      .select({ user: users.username, group: rbacGroups.name })
      .from(groupMemberships)
      .leftJoin(users, eq(users.id, groupMemberships.memberUserId))
      .leftJoin(rbacGroups, eq(rbacGroups.id, groupMemberships.memberGroupId))
      .where(eq(groupMemberships.parentGroupId, id));
    return {
      users: rows.flatMap((row) => (row.user === null ? [] : [row.user])).sort(),
      groups: rows.flatMap((row) => (row.group === null ? [] : [row.group])).sort(),
    };
  }

  /** Adds a user or a group to a group; adding an existing member changes nothing. */
  async addMember(groupId: number, member: { userId: number } | { groupId: number }): Promise<void> {
    await this.datastore.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${advisoryLocks.groupMembership})`);
      const [group] = await tx
        .select({ id: rbacGroups.id })
        .from(rbacGroups)
        .where(eq(rbacGroups.id, groupId));
      if (!group) {
        throw new NotFound("Group not found");
      }
      if ("userId" in member) {
        const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, member.userId));
        if (!user) {
          throw new NotFound("User not found");
        }
        await tx
          .insert(groupMemberships)
          .values({ parentGroupId: groupId, memberUserId: member.userId })
          .onConflictDoNothing();
        return;
      }
      const [child] = await tx
        .select({ id: rbacGroups.id })
        .from(rbacGroups)
        .where(eq(rbacGroups.id, member.groupId));
      if (!child) {
        throw new NotFound("Member group not found");
      }
      if (member.groupId === groupId) {
        throw new InvalidInput("Cannot add a group to itself");
      }
      const cycle = await tx.execute<{ found: number }>(sql`
        with recursive below(id) as (
          select member_group_id from group_memberships
           where parent_group_id = ${member.groupId} and member_group_id is not null
          union
          select m.member_group_id from group_memberships m join below on m.parent_group_id = below.id
           where m.member_group_id is not null
        )
        select 1 as found from below where id = ${groupId}`);
      if (cycle.length > 0) {
        throw new InvalidInput("Adding this group would create a circular reference");
      }
      await tx
        .insert(groupMemberships)
        .values({ parentGroupId: groupId, memberGroupId: member.groupId })
        .onConflictDoNothing();
    });
  }

  async removeMember(groupId: number, member: { userId: number } | { groupId: number }): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(groupMemberships)
      .where(
        and(
          eq(groupMemberships.parentGroupId, groupId),
          "userId" in member
            ? eq(groupMemberships.memberUserId, member.userId)
            : eq(groupMemberships.memberGroupId, member.groupId),
        ),
      )
      .returning({ id: groupMemberships.id });
    return deleted.length > 0;
  }

  /** The groups a user belongs to, directly or through nested groups. */
  async groupsOfUser(userId: number): Promise<Group[]> {
    const ids = await this.datastore.sql<{ id: number }[]>`
      with recursive up(id) as (
        select parent_group_id from group_memberships where member_user_id = ${userId}
        union
        select m.parent_group_id from group_memberships m join up on m.member_group_id = up.id
      )
      select id from up`;
    return this.byIds(ids.map((row) => row.id));
  }

  /** A group and every group it is nested in, whose grants it inherits. */
  async groupAndAncestors(groupId: number): Promise<number[]> {
    const ids = await this.datastore.sql<{ id: number }[]>`
      with recursive up(id) as (
        select ${groupId}::int
        union
        select m.parent_group_id from group_memberships m join up on m.member_group_id = up.id
      )
      select id from up`;
    return ids.map((row) => row.id);
  }

  /** The grants held by the given groups together. */
  async grantsOf(groupIds: number[]): Promise<Grants> {
    if (groupIds.length === 0) {
      return { permissions: [], mcp: [], connections: [] };
    }
    const db = this.datastore.db;
    const [permissions, mcp, connections] = await Promise.all([
      db
        .selectDistinct({ name: groupAdminPermissions.permission })
        .from(groupAdminPermissions)
        .where(inArray(groupAdminPermissions.groupId, groupIds)),
      db
        .selectDistinct({ identifier: groupMcpPrivileges.identifier })
        .from(groupMcpPrivileges)
        .where(inArray(groupMcpPrivileges.groupId, groupIds)),
      db
        .select({
          connectionId: groupConnectionPrivileges.connectionId,
          accessLevel: groupConnectionPrivileges.accessLevel,
        })
        .from(groupConnectionPrivileges)
        .where(inArray(groupConnectionPrivileges.groupId, groupIds)),
    ]);
    return {
      permissions: sortWildcardFirst(permissions.map((row) => row.name)),
      mcp: sortWildcardFirst(mcp.map((row) => row.identifier)),
      connections: connections.map((row) => ({
        connectionId: row.connectionId,
        accessLevel: row.accessLevel as AccessLevel,
      })),
    };
  }

  /** Connections that some group grants by id: only the holders of a grant reach those. */
  async connectionsGrantedById(): Promise<Set<number>> {
    const rows = await this.datastore.db
      .selectDistinct({ id: groupConnectionPrivileges.connectionId })
      .from(groupConnectionPrivileges);
    return new Set(rows.map((row) => row.id).filter((id) => id !== 0));
  }

  async connectionGrants(groupId: number): Promise<ConnectionGrant[]> {
    return this.datastore.db
      .select()
      .from(groupConnectionPrivileges)
      .where(eq(groupConnectionPrivileges.groupId, groupId))
      .orderBy(asc(groupConnectionPrivileges.connectionId));
  }

  async mcpGrants(groupId: number) {
    return this.datastore.db
      .select({
        identifier: groupMcpPrivileges.identifier,
        item: mcpPrivilegeIdentifiers,
        grantedAt: groupMcpPrivileges.createdAt,
      })
      .from(groupMcpPrivileges)
      .leftJoin(
        mcpPrivilegeIdentifiers,
        eq(mcpPrivilegeIdentifiers.identifier, groupMcpPrivileges.identifier),
      )
      .where(eq(groupMcpPrivileges.groupId, groupId))
      .orderBy(asc(groupMcpPrivileges.identifier));
  }

  async permissionGrants(groupId: number): Promise<string[]> {
    const rows = await this.datastore.db
      .select({ name: groupAdminPermissions.permission })
      .from(groupAdminPermissions)
      .where(eq(groupAdminPermissions.groupId, groupId));
    return sortWildcardFirst(rows.map((row) => row.name));
  }

  /** Replaces a group's MCP grants; `*` makes the others redundant, so it stands alone. */
  async setMcpGrants(groupId: number, identifiers: string[]): Promise<void> {
    const kept = identifiers.includes(WILDCARD) ? [WILDCARD] : [...new Set(identifiers)];
    await this.datastore.db.transaction(async (tx) => {
      await tx.delete(groupMcpPrivileges).where(eq(groupMcpPrivileges.groupId, groupId));
      if (kept.length > 0) {
        await tx.insert(groupMcpPrivileges).values(kept.map((identifier) => ({ groupId, identifier })));
      }
    });
  }

  async grantMcp(groupId: number, identifier: string): Promise<void> {
    await this.datastore.db.transaction(async (tx) => {
      if (identifier === WILDCARD) {
        await tx.delete(groupMcpPrivileges).where(eq(groupMcpPrivileges.groupId, groupId));
      }
      await tx.insert(groupMcpPrivileges).values({ groupId, identifier }).onConflictDoNothing();
    });
  }

  async revokeMcp(groupId: number, identifier: string): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(groupMcpPrivileges)
      .where(and(eq(groupMcpPrivileges.groupId, groupId), eq(groupMcpPrivileges.identifier, identifier)))
      .returning({ id: groupMcpPrivileges.groupId });
    return deleted.length > 0;
  }

  /** Replaces a group's connection grants (one level per connection, the last one given wins). */
  async setConnectionGrants(
    groupId: number,
    grants: { connectionId: number; accessLevel: AccessLevel }[],
  ): Promise<void> {
    const byConnection = new Map(grants.map((grant) => [grant.connectionId, grant.accessLevel]));
    await this.datastore.db.transaction(async (tx) => {
      await tx.delete(groupConnectionPrivileges).where(eq(groupConnectionPrivileges.groupId, groupId));
      if (byConnection.size > 0) {
        await tx
          .insert(groupConnectionPrivileges)
          .values(
            [...byConnection].map(([connectionId, accessLevel]) => ({ groupId, connectionId, accessLevel })),
          );
      }
    });
  }

  async grantConnection(groupId: number, connectionId: number, accessLevel: AccessLevel): Promise<void> {
    await this.datastore.db
      .insert(groupConnectionPrivileges)
      .values({ groupId, connectionId, accessLevel })
      .onConflictDoUpdate({
        target: [groupConnectionPrivileges.groupId, groupConnectionPrivileges.connectionId],
        set: { accessLevel },
      });
  }

  async revokeConnection(groupId: number, connectionId: number): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(groupConnectionPrivileges)
      .where(
        and(
          eq(groupConnectionPrivileges.groupId, groupId),
          eq(groupConnectionPrivileges.connectionId, connectionId),
        ),
      )
      .returning({ id: groupConnectionPrivileges.id });
    return deleted.length > 0;
  }

  /** Replaces a group's admin permissions; `*` stands alone. */
  async setPermissions(groupId: number, names: string[]): Promise<void> {
    const kept = names.includes(WILDCARD) ? [WILDCARD] : [...new Set(names)];
    await this.datastore.db.transaction(async (tx) => {
      await tx.delete(groupAdminPermissions).where(eq(groupAdminPermissions.groupId, groupId));
      if (kept.length > 0) {
        await tx.insert(groupAdminPermissions).values(kept.map((permission) => ({ groupId, permission })));
      }
    });
  }

  async grantPermission(groupId: number, name: string): Promise<void> {
    await this.datastore.db.transaction(async (tx) => {
      if (name === WILDCARD) {
        await tx.delete(groupAdminPermissions).where(eq(groupAdminPermissions.groupId, groupId));
      }
      await tx.insert(groupAdminPermissions).values({ groupId, permission: name }).onConflictDoNothing();
    });
  }

  async revokePermission(groupId: number, name: string): Promise<boolean> {
    const deleted = await this.datastore.db
      .delete(groupAdminPermissions)
      .where(and(eq(groupAdminPermissions.groupId, groupId), eq(groupAdminPermissions.permission, name)))
      .returning({ id: groupAdminPermissions.groupId });
    return deleted.length > 0;
  }

  private async byIds(ids: number[]): Promise<Group[]> {
    if (ids.length === 0) {
      return [];
    }
    return this.datastore.db
      .select()
      .from(rbacGroups)
      .where(inArray(rbacGroups.id, ids))
      .orderBy(asc(rbacGroups.name));
  }
}

/** Sorted, with the wildcard first when present. */
export function sortWildcardFirst(names: string[]): string[] {
  return [...names].sort((a, b) => (a === WILDCARD ? -1 : b === WILDCARD ? 1 : a.localeCompare(b)));
}

function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return (error as { code?: string }).code === "23505" || cause?.code === "23505";
}
