import { type Datastore, schema } from "@dbmon/datastore";
import { and, asc, desc, eq, inArray, isNull, or } from "drizzle-orm";
import type { RequestAccess } from "../auth/access.js";
import { Visibility } from "../auth/visibility.js";
import { Conflict, Forbidden, NotFound } from "../errors.js";
import {
  type ClusterChanges,
  createManualCluster,
  deleteStoredCluster,
  dismissAutoCluster,
  type NewCluster,
  overrideAutoCluster,
  updateStoredCluster,
} from "./manage.js";
import { changeMembership, connectionClusterInfo, type MembershipChange } from "./membership.js";
import type { ClusterRef } from "./refs.js";
import {
  clearConnectionRelationships,
  deleteRelationship,
  forgetConnectionRelationships,
  type RelationshipInput,
  setConnectionRelationships,
} from "./relationships.js";
import { readServers, serverStatus } from "./status.js";
import {
  type ClusterRow,
  findCluster,
  findGroup,
  type GroupRow,
  isUniqueViolation,
  listRelationships,
  notFound,
  type Relationship,
} from "./store.js";
import { buildTopology, type TopologyGroup } from "./topology.js";
import {
  type ClusterScope,
  clusterScope,
  clusterVisibility,
  groupVisibility,
  relationshipVisibility,
} from "./visibility.js";

const { clusterGroups, clusters, connections } = schema;

const duplicateGroup = "A cluster group with this name already exists";

/**
 * Cluster groups, clusters, their servers and relationships, and the topology built from them.
 * What a caller sees is decided here, in SQL, from the caller's `RequestAccess`.
 */
export class ClusterService {
  constructor(private readonly datastore: Pick<Datastore, "db" | "sql">) {}

  private get db() {
    return this.datastore.db;
  }

  // Groups

  /** The groups the caller can see, the default first. */
  async listGroups(access: RequestAccess): Promise<GroupRow[]> {
    const scope = await clusterScope(access);
    return this.db
      .select()
      .from(clusterGroups)
      .where(groupVisibility(this.db, scope))
      .orderBy(desc(clusterGroups.isDefault), asc(clusterGroups.name));
  }

  /** A group the caller can see, or not found. */
  async group(access: RequestAccess, id: number): Promise<GroupRow> {
    return this.visibleGroup(await clusterScope(access), id);
  }

  async createGroup(
    access: RequestAccess,
    input: { name: string; description?: string | null | undefined },
  ): Promise<GroupRow> {
    const caller = await access.requireCaller();
    const [group] = await this.db
      .insert(clusterGroups)
      .values({ name: input.name, description: input.description ?? null, ownerUsername: caller.username })
      .returning()
      .catch(refuseDuplicateGroup);
    if (!group) {
      throw new Error("insert returned nothing");
    }
    return group;
  }

  async updateGroup(
    access: RequestAccess,
    id: number,
    input: { name: string; description?: string | null | undefined },
  ): Promise<GroupRow> {
    await this.writableGroup(access, id);
    const [updated] = await this.db
      .update(clusterGroups)
      .set({
        name: input.name,
        ...(input.description !== undefined ? { description: input.description } : {}),
        updatedAt: new Date(),
      })
      .where(eq(clusterGroups.id, id))
      .returning()
      .catch(refuseDuplicateGroup);
    if (!updated) {
      throw new NotFound(notFound.group);
    }
    return updated;
  }

  /** Deletes a group with its clusters; their servers return to auto-detection. */
  async deleteGroup(access: RequestAccess, id: number): Promise<void> {
    const group = await this.writableGroup(access, id);
    if (group.isDefault) {
      throw new Forbidden("The default group cannot be deleted");
    }
    await this.db.transaction(async (tx) => {
      const clusterIds = tx.select({ id: clusters.id }).from(clusters).where(eq(clusters.groupId, id));
      await tx
        .update(connections)
        .set({ clusterId: null, role: null, membershipSource: "auto" })
        .where(inArray(connections.clusterId, clusterIds));
      await tx.delete(clusterGroups).where(eq(clusterGroups.id, id));
    });
  }

  /** The live clusters of a group the caller can see, by name. */
  async groupClusters(access: RequestAccess, id: number): Promise<ClusterRow[]> {
    const scope = await clusterScope(access);
    const group = await this.visibleGroup(scope, id);
    const inGroup = group.isDefault
      ? or(eq(clusters.groupId, id), isNull(clusters.groupId))
      : eq(clusters.groupId, id);
    return this.db
      .select()
      .from(clusters)
      .where(and(inGroup, eq(clusters.dismissed, false), clusterVisibility(this.db, scope)))
      .orderBy(asc(clusters.name), asc(clusters.id));
  }

  /** A manual cluster in an existing group (not found otherwise). */
  async createClusterInGroup(
    access: RequestAccess,
    groupId: number,
    input: Omit<NewCluster, "group_id">,
  ): Promise<ClusterRow> {
    if (!(await findGroup(this.db, groupId))) {
      throw new NotFound(notFound.group);
    }
    return this.createCluster(access, { ...input, group_id: groupId });
  }

  // Clusters

  /** Groups → clusters → servers, pruned to what the caller can see. */
  async topology(access: RequestAccess): Promise<TopologyGroup[]> {
    return buildTopology(this.datastore, await clusterScope(access));
  }

  /** Every live cluster the caller can see, by name. */
  async listClusters(access: RequestAccess): Promise<ClusterRow[]> {
    const scope = await clusterScope(access);
    return this.db
      .select()
      .from(clusters)
      .where(and(eq(clusters.dismissed, false), clusterVisibility(this.db, scope)))
      .orderBy(asc(clusters.name), asc(clusters.id));
  }

  /** A stored cluster the caller can see, or not found (missing, dismissed, or nothing of it visible). */
  async cluster(access: RequestAccess, id: number): Promise<ClusterRow> {
    return this.visibleCluster(await clusterScope(access), id);
  }

  /** A cluster users manage themselves, in the given group or the default one. */
  async createCluster(access: RequestAccess, input: NewCluster): Promise<ClusterRow> {
    const caller = await access.requireCaller();
    return createManualCluster(this.db, input, caller.username);
  }

  /** Changes a stored cluster, or renames or moves an auto-detected one. */
  updateCluster(ref: ClusterRef, changes: ClusterChanges): Promise<ClusterRow> {
    return ref.kind === "stored"
      ? updateStoredCluster(this.db, ref.id, changes)
      : overrideAutoCluster(this.db, ref, changes);
  }

  /** Deletes a manual cluster; dismisses an auto-detected one for good. */
  deleteCluster(ref: ClusterRef): Promise<void> {
    return ref.kind === "stored" ? deleteStoredCluster(this.db, ref.id) : dismissAutoCluster(this.db, ref);
  }

  /** The servers of a cluster the caller can see, by name, with their status. */
  async servers(access: RequestAccess, clusterId: number) {
    const scope = await clusterScope(access);
    await this.visibleCluster(scope, clusterId);
    const servers = await readServers(this.datastore.sql, {
      clusterId,
      ...(scope.everything ? {} : { only: [...scope.visible] }),
    });
    return servers.map((server) => ({ ...server, status: serverStatus(server) }));
  }

  /**
   * A cluster or group the caller can see (not found otherwise) and its connections the caller can
   * see, by name: a group holds its live clusters' connections, and the default group also the
   * connections in no cluster or in a cluster of no group.
   */
  async visibleMembers(
    access: RequestAccess,
    kind: "cluster" | "group",
    id: number,
  ): Promise<{ name: string; members: { id: number; name: string }[] }> {
    const scope = await clusterScope(access);
    const owner =
      kind === "cluster" ? await this.visibleCluster(scope, id) : await this.visibleGroup(scope, id);
    const inGroup = (group: GroupRow) =>
      or(
        and(eq(clusters.groupId, id), eq(clusters.dismissed, false)),
        group.isDefault
          ? or(isNull(connections.clusterId), and(isNull(clusters.groupId), eq(clusters.dismissed, false)))
          : undefined,
      );
    const members = await this.db
      .select({ id: connections.id, name: connections.name })
      .from(connections)
      .leftJoin(clusters, eq(clusters.id, connections.clusterId))
      .where(
        and(
          kind === "cluster" ? eq(connections.clusterId, id) : inGroup(owner as GroupRow),
          (await Visibility.of(access)).connection(connections.id),
        ),
      )
      .orderBy(asc(connections.name), asc(connections.id));
    return { name: owner.name, members };
  }

  /** Places a server in a cluster by hand; its relationships in the cluster it leaves are removed. */
  async addServer(
    clusterId: number,
    connectionId: number,
    role: string | null | undefined,
  ): Promise<{ role: string | null }> {
    if (!(await findCluster(this.db, clusterId))) {
      throw new NotFound(notFound.cluster);
    }
    await changeMembership(this.datastore.sql, connectionId, {
      cluster_id: clusterId,
      role,
      membership_source: "manual",
    });
    return { role: role ?? null };
  }

  /** Takes a server out of a cluster and hands it back to auto-detection. */
  async removeServer(clusterId: number, connectionId: number): Promise<void> {
    const removed = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(connections)
        .set({ clusterId: null, role: null, membershipSource: "auto" })
        .where(and(eq(connections.id, connectionId), eq(connections.clusterId, clusterId)))
        .returning({ id: connections.id });
      if (rows.length > 0) {
        await forgetConnectionRelationships(tx, connectionId);
      }
      return rows.length > 0;
    });
    if (!removed) {
      throw new NotFound("Connection not found in this cluster");
    }
  }

  // Relationships

  /** Relationships of a cluster the caller can see, between servers it can see. */
  async relationships(access: RequestAccess, clusterId: number): Promise<Relationship[]> {
    const scope = await clusterScope(access);
    await this.visibleCluster(scope, clusterId);
    return listRelationships(this.db, { clusterId }, relationshipVisibility(scope));
  }

  /** Replaces a server's manual relationships; answers every relationship of the cluster. */
  async setRelationships(
    clusterId: number,
    connectionId: number,
    inputs: RelationshipInput[],
  ): Promise<Relationship[]> {
    await setConnectionRelationships(this.db, clusterId, connectionId, inputs);
    return listRelationships(this.db, { clusterId });
  }

  clearRelationships(clusterId: number, connectionId: number): Promise<void> {
    return clearConnectionRelationships(this.db, clusterId, connectionId);
  }

  deleteRelationship(clusterId: number, relationshipId: number): Promise<void> {
    return deleteRelationship(this.db, clusterId, relationshipId);
  }

  // A connection's membership

  /** A connection's membership, the clusters the caller can see and its visible relationships. */
  async connectionCluster(access: RequestAccess, connectionId: number) {
    const scope = await clusterScope(access);
    const [info, visibleClusters, relationships] = await Promise.all([
      connectionClusterInfo(this.datastore.sql, connectionId),
      this.db
        .select()
        .from(clusters)
        .where(and(eq(clusters.dismissed, false), clusterVisibility(this.db, scope)))
        .orderBy(asc(clusters.name), asc(clusters.id)),
      listRelationships(this.db, { connectionId }, relationshipVisibility(scope)),
    ]);
    return { info, clusters: visibleClusters, relationships };
  }

  /** Moves a connection between clusters (or back to auto-detection); answers its new membership. */
  async changeMembership(connectionId: number, change: MembershipChange) {
    await changeMembership(this.datastore.sql, connectionId, change);
    return connectionClusterInfo(this.datastore.sql, connectionId);
  }

  private async visibleGroup(scope: ClusterScope, id: number): Promise<GroupRow> {
    const [group] = await this.db
      .select()
      .from(clusterGroups)
      .where(and(eq(clusterGroups.id, id), groupVisibility(this.db, scope)));
    if (!group) {
      throw new NotFound(notFound.group);
    }
    return group;
  }

  private async visibleCluster(scope: ClusterScope, id: number): Promise<ClusterRow> {
    const [cluster] = await this.db
      .select()
      .from(clusters)
      .where(and(eq(clusters.id, id), eq(clusters.dismissed, false), clusterVisibility(this.db, scope)));
    if (!cluster) {
      throw new NotFound(notFound.cluster);
    }
    return cluster;
  }

  /** A group the caller may change: its owner may; everybody else needs manage_connections. */
  private async writableGroup(access: RequestAccess, id: number): Promise<GroupRow> {
    const group = await findGroup(this.db, id);
    if (!group) {
      throw new NotFound(notFound.group);
    }
    const caller = await access.requireCaller();
    if (group.ownerUsername !== caller.username) {
      await access.require({ permission: "manage_connections" });
    }
    return group;
  }
}

function refuseDuplicateGroup(error: unknown): never {
  throw isUniqueViolation(error) ? new Conflict(duplicateGroup) : error;
}
