import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text, unique, uniqueIndex } from "drizzle-orm/pg-core";
import { nowOnInsert, rowId } from "./columns.js";
import { monitoredConnection } from "./monitored-connection.js";

/**
 * Groups of clusters in the navigator. Exactly one is the default ("Servers/Clusters", seeded by a
 * migration): auto-detected clusters land there and it cannot be deleted.
 */
export const clusterGroups = pgTable(
  "cluster_groups",
  {
    id: rowId(),
    name: text().notNull().unique(),
    description: text(),
    ownerUsername: text(),
    isShared: boolean().notNull().default(true),
    isDefault: boolean().notNull().default(false),
    /** Key of a group created by auto-detection; null for groups users create. */
    autoGroupKey: text().unique(),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
  },
  (table) => [
    uniqueIndex("cluster_groups_single_default").on(table.isDefault).where(sql`${table.isDefault}`),
  ],
);

/**
 * Clusters of servers. Manual clusters have no `auto_cluster_key`; auto-detected ones are keyed
 * (`spock:<prefix>`, `binary:<id>`, `logical:<id>`, `standalone:<id>`), keep the user's name and group
 * across detections, and are only marked `dismissed` when deleted, so detection does not bring them back.
 */
export const clusters = pgTable(
  "clusters",
  {
    id: rowId(),
    groupId: integer().references(() => clusterGroups.id, { onDelete: "cascade" }),
    autoClusterKey: text().unique(),
    name: text().notNull(),
    description: text(),
    replicationType: text(),
    dismissed: boolean().notNull().default(false),
    ownerUsername: text(),
    createdAt: nowOnInsert(),
    updatedAt: nowOnInsert(),
  },
  (table) => [index("clusters_group_idx").on(table.groupId)],
);

/** Directed replication links between members of a cluster, detected or entered by users. */
export const clusterNodeRelationships = pgTable(
  "cluster_node_relationships",
  {
    id: rowId(),
    clusterId: integer()
      .notNull()
      .references(() => clusters.id, { onDelete: "cascade" }),
    sourceConnectionId: monitoredConnection(),
    targetConnectionId: monitoredConnection(),
    relationshipType: text().notNull(),
    isAutoDetected: boolean().notNull().default(false),
    createdAt: nowOnInsert(),
  },
  (table) => [
    unique("cluster_node_relationships_unique").on(
      table.clusterId,
      table.sourceConnectionId,
      table.targetConnectionId,
      table.relationshipType,
    ),
    check(
      "cluster_node_relationships_no_self",
      sql`${table.sourceConnectionId} <> ${table.targetConnectionId}`,
    ),
    check(
      "cluster_node_relationships_type",
      sql`${table.relationshipType} in ('streams_from', 'subscribes_to', 'replicates_with')`,
    ),
  ],
);
