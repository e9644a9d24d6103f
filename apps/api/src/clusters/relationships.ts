import type { Db } from "@dbmon/datastore";
import { schema } from "@dbmon/datastore";
import { and, eq, or } from "drizzle-orm";
import { type DomainError, InvalidInput, NotFound } from "../errors.js";
import { findCluster, notFound, type RelationshipTypeName, relationshipTypes } from "./store.js";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
const r = schema.clusterNodeRelationships;

/** Refuses unless the cluster exists (404) and the connection is one of its members (`refusal`). */
async function requireMember(
  db: Db,
  clusterId: number,
  connectionId: number,
  refusal: DomainError,
): Promise<void> {
  if (!(await findCluster(db, clusterId))) {
    throw new NotFound(notFound.cluster);
  }
  if (!(await isMember(db, clusterId, connectionId))) {
    throw refusal;
  }
}

async function isMember(db: Db | Tx, clusterId: number, connectionId: number): Promise<boolean> {
  const [row] = await db
    .select({ id: schema.connections.id })
    .from(schema.connections)
    .where(and(eq(schema.connections.id, connectionId), eq(schema.connections.clusterId, clusterId)));
  return row !== undefined;
}

/**
 * Removes a source's manual relationships in a cluster, and the reverse rows of its symmetric
 * (`replicates_with`) ones.
 */
async function clearManual(tx: Tx, clusterId: number, source: number): Promise<void> {
  await tx
    .delete(r)
    .where(
      and(
        eq(r.clusterId, clusterId),
        eq(r.isAutoDetected, false),
        or(
          eq(r.sourceConnectionId, source),
          and(eq(r.targetConnectionId, source), eq(r.relationshipType, "replicates_with")),
        ),
      ),
    );
}

export async function clearConnectionRelationships(db: Db, clusterId: number, source: number): Promise<void> {
  await requireMember(db, clusterId, source, new NotFound("Connection not found in this cluster"));
  await db.transaction((tx) => clearManual(tx, clusterId, source));
}

/** Removes every relationship a connection is part of, as a source or a target, in any cluster. */
export async function forgetConnectionRelationships(tx: Tx, connectionId: number): Promise<void> {
  const touches = or(eq(r.sourceConnectionId, connectionId), eq(r.targetConnectionId, connectionId));
  await tx.delete(r).where(touches);
}

export interface RelationshipInput {
  target_connection_id: number;
  relationship_type: string;
}

/** Replaces a source's manual relationships; `replicates_with` links get their reverse as well. */
export async function setConnectionRelationships(
  db: Db,
  clusterId: number,
  source: number,
  inputs: RelationshipInput[],
): Promise<void> {
  await requireMember(
    db,
    clusterId,
    source,
    new InvalidInput("Source connection does not belong to this cluster"),
  );
  for (const input of inputs) {
    if (!relationshipTypes.includes(input.relationship_type as RelationshipTypeName)) {
      throw new InvalidInput(`Invalid relationship type: ${input.relationship_type}`);
    }
    if (input.target_connection_id === source) {
      throw new InvalidInput("Self-relationships are not allowed");
    }
    if (!(await isMember(db, clusterId, input.target_connection_id))) {
      throw new InvalidInput("Target connection does not belong to this cluster");
    }
  }
  const rows = inputs.flatMap((input) => {
    const forward = {
      clusterId,
      sourceConnectionId: source,
      targetConnectionId: input.target_connection_id,
      relationshipType: input.relationship_type,
      isAutoDetected: false,
    };
    return input.relationship_type === "replicates_with"
      ? [forward, { ...forward, sourceConnectionId: input.target_connection_id, targetConnectionId: source }]
      : [forward];
  });
  await db.transaction(async (tx) => {
    await clearManual(tx, clusterId, source);
    if (rows.length > 0) {
      await tx.insert(r).values(rows).onConflictDoNothing();
    }
  });
}

/** Deletes one relationship of a cluster (with its reverse when symmetric). */
export async function deleteRelationship(db: Db, clusterId: number, relationshipId: number): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(r)
      .where(and(eq(r.id, relationshipId), eq(r.clusterId, clusterId)))
      .returning();
    if (!row) {
      throw new NotFound("Relationship not found");
    }
    if (row.relationshipType === "replicates_with") {
      await tx
        .delete(r)
        .where(
          and(
            eq(r.clusterId, clusterId),
            eq(r.relationshipType, "replicates_with"),
            eq(r.sourceConnectionId, row.targetConnectionId),
            eq(r.targetConnectionId, row.sourceConnectionId),
            eq(r.isAutoDetected, row.isAutoDetected),
          ),
        );
    }
  });
}
