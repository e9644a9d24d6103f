import type { Db } from "@dbmon/datastore";
import { schema } from "@dbmon/datastore";
import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { InvalidInput, NotFound } from "../errors.js";
import { autoKeysOf, type ClusterRef } from "./refs.js";
import { type ClusterRow, findCluster, findGroup, notFound } from "./store.js";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

const invalidGroup = "Cluster group not found";

async function defaultGroupId(db: Db | Tx): Promise<number | null> {
  const [row] = await db
    .select({ id: schema.clusterGroups.id })
    .from(schema.clusterGroups)
    .where(eq(schema.clusterGroups.isDefault, true));
  return row?.id ?? null;
}

async function requireGroupForBody(db: Db, groupId: number): Promise<void> {
  if (!(await findGroup(db, groupId))) {
    throw new InvalidInput(invalidGroup);
  }
}

export interface NewCluster {
  name: string;
  description?: string | null | undefined;
  replication_type?: string | null | undefined;
  group_id?: number | undefined;
}

/** A cluster users manage themselves, in the given group or the default one. */
export async function createManualCluster(db: Db, body: NewCluster, owner: string): Promise<ClusterRow> {
  if (body.group_id !== undefined) {
    await requireGroupForBody(db, body.group_id);
  }
  const [row] = await db
    .insert(schema.clusters)
    .values({
      name: body.name,
      description: body.description ?? null,
      replicationType: body.replication_type ?? null,
      groupId: body.group_id ?? (await defaultGroupId(db)),
      ownerUsername: owner,
    })
    .returning();
  if (!row) {
    throw new Error("insert returned nothing");
  }
  return row;
}

export interface ClusterChanges {
  name?: string | undefined;
  description?: string | undefined;
  replication_type?: string | undefined;
  group_id?: number | undefined;
  auto_cluster_key?: string | undefined;
}

const filled = (value: string | undefined) =>
  value !== undefined && value.trim() !== "" ? value : undefined;

/** Changes a stored cluster (manual or auto-detected). */
export async function updateStoredCluster(db: Db, id: number, body: ClusterChanges): Promise<ClusterRow> {
  const name = filled(body.name);
  const description = filled(body.description);
  const replicationType = filled(body.replication_type);
  if (
    name === undefined &&
    description === undefined &&
    replicationType === undefined &&
    body.group_id === undefined
  ) {
    throw new InvalidInput("At least name, group_id, description, or replication_type is required");
  }
  if (!(await findCluster(db, id))) {
    throw new NotFound(notFound.cluster);
  }
  if (body.group_id !== undefined) {
    await requireGroupForBody(db, body.group_id);
  }
  const [row] = await db
    .update(schema.clusters)
    .set({
      ...(name !== undefined ? { name } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(replicationType !== undefined ? { replicationType } : {}),
      ...(body.group_id !== undefined ? { groupId: body.group_id } : {}),
      updatedAt: new Date(),
    })
    .where(eq(schema.clusters.id, id))
    .returning();
  if (!row) {
    throw new NotFound(notFound.cluster);
  }
  return row;
}

/**
 * Renames, describes or moves an auto-detected cluster named by its topology id, storing the
 * override under its key (the body's, or the detected cluster's, or the standalone server's).
 */
export async function overrideAutoCluster(
  db: Db,
  ref: Exclude<ClusterRef, { kind: "stored" }>,
  body: ClusterChanges,
): Promise<ClusterRow> {
  const name = filled(body.name);
  const description = filled(body.description);
  if (name === undefined && description === undefined && body.group_id === undefined) {
    throw new InvalidInput("At least name, description, or group_id is required");
  }
  const keys = autoKeysOf(ref);
  if (body.auto_cluster_key !== undefined && !keys.includes(body.auto_cluster_key)) {
    throw new InvalidInput("auto_cluster_key does not belong to this cluster");
  }
  if (body.group_id !== undefined) {
    await requireGroupForBody(db, body.group_id);
  }
  let defaultName = ref.kind === "spock" ? `${ref.prefix} Spock` : "";
  if (ref.kind === "server") {
    const [connection] = await db
      .select({ name: schema.connections.name })
      .from(schema.connections)
      .where(eq(schema.connections.id, ref.connectionId));
    if (!connection) {
      throw new NotFound(notFound.cluster);
    }
    defaultName = connection.name;
  }
  return db.transaction(async (tx) => {
    const existing = await tx
      .select()
      .from(schema.clusters)
      .where(inArray(schema.clusters.autoClusterKey, keys));
    const key =
      body.auto_cluster_key ??
      existing.find((row) => !row.dismissed)?.autoClusterKey ??
      (ref.kind === "spock" ? keys[0] : `standalone:${ref.connectionId}`);
    if (!key) {
      throw new NotFound(notFound.cluster);
    }
    const changes = {
      ...(name !== undefined ? { name } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(body.group_id !== undefined ? { groupId: body.group_id } : {}),
      updatedAt: new Date(),
    };
    const [row] = await tx
      .insert(schema.clusters)
      .values({
        autoClusterKey: key,
        name: name ?? defaultName,
        description: description ?? null,
        groupId: body.group_id ?? (await defaultGroupId(tx)),
      })
      .onConflictDoUpdate({ target: schema.clusters.autoClusterKey, set: changes })
      .returning();
    if (!row) {
      throw new Error("upsert returned nothing");
    }
    if (ref.kind === "server" && key.startsWith("standalone:") && !row.dismissed) {
      // A standalone server is stored as a cluster once a user names it.
      await tx
        .update(schema.connections)
        .set({ clusterId: row.id })
        .where(
          and(
            eq(schema.connections.id, ref.connectionId),
            eq(schema.connections.membershipSource, "auto"),
            isNull(schema.connections.clusterId),
          ),
        );
    }
    return row;
  });
}

/** Members of these clusters leave them and return to auto-detection. */
async function releaseMembers(tx: Tx, clusterIds: number[]): Promise<void> {
  if (clusterIds.length === 0) {
    return;
  }
  await tx
    .update(schema.connections)
    .set({ clusterId: null, role: null, membershipSource: "auto" })
    .where(inArray(schema.connections.clusterId, clusterIds));
}

/** Deletes a manual cluster; dismisses an auto-detected one so that detection does not recreate it. */
export async function deleteStoredCluster(db: Db, id: number): Promise<void> {
  const cluster = await findCluster(db, id);
  if (!cluster) {
    throw new NotFound(notFound.cluster);
  }
  await db.transaction(async (tx) => {
    await releaseMembers(tx, [id]);
    if (cluster.autoClusterKey === null) {
      await tx.delete(schema.clusters).where(eq(schema.clusters.id, id));
    } else {
      await tx
        .update(schema.clusters)
        .set({ dismissed: true, updatedAt: new Date() })
        .where(eq(schema.clusters.id, id));
      await tx
        .delete(schema.clusterNodeRelationships)
        .where(eq(schema.clusterNodeRelationships.clusterId, id));
    }
  });
}

/** Dismisses every auto-detected cluster a topology id stands for. */
export async function dismissAutoCluster(
  db: Db,
  ref: Exclude<ClusterRef, { kind: "stored" }>,
): Promise<void> {
  const keys = autoKeysOf(ref);
  let name = ref.kind === "spock" ? `${ref.prefix} Spock` : "";
  if (ref.kind === "server") {
    const [connection] = await db
      .select({ name: schema.connections.name })
      .from(schema.connections)
      .where(eq(schema.connections.id, ref.connectionId));
    const known = await db
      .select({ id: schema.clusters.id })
      .from(schema.clusters)
      .where(inArray(schema.clusters.autoClusterKey, keys));
    if (!connection && known.length === 0) {
      throw new NotFound(notFound.cluster);
    }
    name = connection?.name ?? `server-${ref.connectionId}`;
  }
  await db.transaction(async (tx) => {
    const groupId = await defaultGroupId(tx);
    const rows = await tx
      .insert(schema.clusters)
      .values(keys.map((key) => ({ autoClusterKey: key, name, groupId, dismissed: true })))
      .onConflictDoUpdate({
        target: schema.clusters.autoClusterKey,
        set: { dismissed: true, updatedAt: sql`now()` },
      })
      .returning({ id: schema.clusters.id });
    const ids = rows.map((row) => row.id);
    await releaseMembers(tx, ids);
    await tx
      .delete(schema.clusterNodeRelationships)
      .where(inArray(schema.clusterNodeRelationships.clusterId, ids));
  });
}
