import { NotFound } from "../errors.js";
import type { RequestAccess } from "./access.js";
import type { ConnectionGrant, Group, GroupDirectory } from "./groups.js";
import { type AccessLevel, higherLevel, requireKnownPermissions } from "./model.js";
import { mergeConnectionGrants } from "./privileges.js";
import type { ScopeStore } from "./scopes.js";

export type GroupMember = { userId: number } | { groupId: number };

export interface ConnectionAccess {
  connectionId: number;
  accessLevel: AccessLevel;
}

/**
 * Groups, their members and what they grant, as administrators manage them. Every operation on a
 * group refuses an unknown one (NotFound) before anything else; names to grant must be known. A
 * caller never grants what it does not hold itself: neither a new grant (manage_permissions) nor,
 * by adding a member (manage_groups), the grants the group and the groups containing it give.
 */
export class GroupAdministration {
  constructor(
    private readonly groups: GroupDirectory,
    private readonly scopes: ScopeStore,
  ) {}

  list() {
    return this.groups.list();
  }

  create(name: string, description: string): Promise<Group> {
    return this.groups.create(name, description);
  }

  /** The group with its direct members and its own grants. */
  async detail(id: number) {
    const group = await this.groups.require(id);
    const [members, mcp, connections, permissions] = await Promise.all([
      this.groups.members(id),
      this.groups.mcpGrants(id),
      this.groups.connectionGrants(id),
      this.groups.permissionGrants(id),
    ]);
    return { group, members, mcp, connections, permissions };
  }

  async update(
    id: number,
    changes: { name?: string | undefined; description?: string | undefined },
  ): Promise<Group & { memberCount: number }> {
    const group = await this.groups.update(id, changes);
    return { ...group, memberCount: await this.groups.memberCount(id) };
  }

  async delete(id: number): Promise<void> {
    if (!(await this.groups.delete(id))) {
      throw new NotFound("Group not found");
    }
  }

  async addMember(access: RequestAccess, id: number, member: GroupMember): Promise<void> {
    await this.groups.require(id);
    await access.requireHolds(await this.groups.grantsOf(await this.groups.groupAndAncestors(id)));
    await this.groups.addMember(id, member);
  }

  async removeMember(id: number, member: GroupMember): Promise<void> {
    await this.groups.require(id);
    if (!(await this.groups.removeMember(id, member))) {
      throw new NotFound("Member not found");
    }
  }

  /** The group's own grants plus those of every group it is nested in, one level per connection. */
  async effectivePrivileges(id: number) {
    const group = await this.groups.require(id);
    const grants = await this.groups.grantsOf(await this.groups.groupAndAncestors(id));
    const connections: ConnectionAccess[] = [...mergeConnectionGrants(grants.connections)]
      .sort(([a], [b]) => a - b)
      .map(([connectionId, accessLevel]) => ({ connectionId, accessLevel }));
    return { group, mcp: grants.mcp, connections, permissions: grants.permissions };
  }

  async mcpGrants(id: number): Promise<string[]> {
    await this.groups.require(id);
    return (await this.groups.grantsOf([id])).mcp;
  }

  /** Replaces the group's MCP grants; returns the new set. */
  async setMcpGrants(access: RequestAccess, id: number, identifiers: string[]): Promise<string[]> {
    await this.groups.require(id);
    await this.scopes.requireKnownMcpItems(identifiers);
    await this.requireHoldsNewMcp(access, id, identifiers);
    await this.groups.setMcpGrants(id, identifiers);
    return (await this.groups.grantsOf([id])).mcp;
  }

  async grantMcp(access: RequestAccess, id: number, identifier: string): Promise<void> {
    await this.groups.require(id);
    await this.scopes.requireKnownMcpItems([identifier]);
    await this.requireHoldsNewMcp(access, id, [identifier]);
    await this.groups.grantMcp(id, identifier);
  }

  /** MCP items the group does not have yet must be held by the caller. */
  private async requireHoldsNewMcp(access: RequestAccess, id: number, identifiers: string[]): Promise<void> {
    const granted = new Set((await this.groups.grantsOf([id])).mcp);
    const added = identifiers.filter((identifier) => !granted.has(identifier));
    await access.requireHolds({ permissions: [], mcp: added, connections: [] });
  }

  async revokeMcp(id: number, identifier: string): Promise<void> {
    await this.groups.require(id);
    if (!(await this.groups.revokeMcp(id, identifier))) {
      throw new NotFound("Privilege not granted to this group");
    }
  }

  async connectionGrants(id: number): Promise<ConnectionGrant[]> {
    await this.groups.require(id);
    return this.groups.connectionGrants(id);
  }

  /** Replaces the group's connection grants; returns the new set. */
  async setConnectionGrants(
    access: RequestAccess,
    id: number,
    grants: ConnectionAccess[],
  ): Promise<ConnectionGrant[]> {
    await this.groups.require(id);
    await this.requireHoldsNewConnectionGrants(access, id, grants);
    await this.groups.setConnectionGrants(id, grants);
    return this.groups.connectionGrants(id);
  }

  async grantConnection(access: RequestAccess, id: number, grant: ConnectionAccess): Promise<void> {
    await this.groups.require(id);
    await this.requireHoldsNewConnectionGrants(access, id, [grant]);
    await this.groups.grantConnection(id, grant.connectionId, grant.accessLevel);
  }

  /** Connection levels the group does not have yet must be held by the caller. */
  private async requireHoldsNewConnectionGrants(
    access: RequestAccess,
    id: number,
    grants: ConnectionAccess[],
  ): Promise<void> {
    const granted = mergeConnectionGrants(
      (await this.groups.connectionGrants(id)).map((grant) => ({
        connectionId: grant.connectionId,
        accessLevel: grant.accessLevel as AccessLevel,
      })),
    );
    const added = grants.filter(
      (grant) =>
        higherLevel(granted.get(grant.connectionId), grant.accessLevel) !== granted.get(grant.connectionId),
    );
    await access.requireHolds({ permissions: [], mcp: [], connections: added });
  }

  async revokeConnection(id: number, connectionId: number): Promise<void> {
    await this.groups.require(id);
    if (!(await this.groups.revokeConnection(id, connectionId))) {
      throw new NotFound("Connection privilege not found");
    }
  }

  async permissions(id: number): Promise<string[]> {
    await this.groups.require(id);
    return this.groups.permissionGrants(id);
  }

  /** Replaces the group's admin permissions; returns the new set. */
  async setPermissions(id: number, names: string[]): Promise<string[]> {
    await this.groups.require(id);
    requireKnownPermissions(names);
    await this.groups.setPermissions(id, names);
    return this.groups.permissionGrants(id);
  }

  async grantPermission(id: number, name: string): Promise<void> {
    await this.groups.require(id);
    requireKnownPermissions([name]);
    await this.groups.grantPermission(id, name);
  }

  async revokePermission(id: number, name: string): Promise<void> {
    await this.groups.require(id);
    requireKnownPermissions([name]);
    if (!(await this.groups.revokePermission(id, name))) {
      throw new NotFound("Permission not granted to this group");
    }
  }
}
