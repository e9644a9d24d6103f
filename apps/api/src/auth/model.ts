import { type AccessLevel, type AdminPermission, adminPermissions } from "@dbmon/contract";
import { InvalidInput } from "../errors.js";

export { type AccessLevel, type AdminPermission, adminPermissions };

export const WILDCARD = "*";

export function isAdminPermission(name: string): name is AdminPermission {
  return (adminPermissions as readonly string[]).includes(name);
}

/** Refuses names that are not admin permissions (the wildcard is one). */
export function requireKnownPermissions(names: readonly string[]): void {
  const unknown = names.find((name) => name !== WILDCARD && !isAdminPermission(name));
  if (unknown !== undefined) {
    throw new InvalidInput(`Invalid permission: ${unknown}`);
  }
}

export const accessLevels: readonly AccessLevel[] = ["read", "read_write"];

/** Connection id that stands for every connection in grants and scopes. */
export const ALL_CONNECTIONS = 0;

export function higherLevel(a: AccessLevel | undefined, b: AccessLevel | undefined): AccessLevel | undefined {
  return a === "read_write" || b === "read_write" ? "read_write" : (a ?? b);
}

export function lowerLevel(a: AccessLevel, b: AccessLevel): AccessLevel {
  return a === "read" || b === "read" ? "read" : "read_write";
}

export interface McpItem {
  identifier: string;
  itemType: "tool" | "resource" | "prompt";
  description: string;
  /** Public items are usable by every authenticated caller without a grant. */
  isPublic: boolean;
}

/** MCP items dbmon serves, registered in the datastore at every start-up. */
export const mcpItems: readonly McpItem[] = [
  {
    identifier: "query_database",
    itemType: "tool",
    description: "Run a read-only SQL query on a monitored connection",
    isPublic: false,
  },
  {
    identifier: "get_schema_info",
    itemType: "tool",
    description: "Describe the schema of a monitored database",
    isPublic: false,
  },
  {
    identifier: "execute_explain",
    itemType: "tool",
    description: "EXPLAIN a query on a monitored connection",
    isPublic: false,
  },
  { identifier: "count_rows", itemType: "tool", description: "Count the rows of a table", isPublic: false },
  { identifier: "list_probes", itemType: "tool", description: "List the metric probes", isPublic: false },
  {
    identifier: "describe_probe",
    itemType: "tool",
    description: "Describe one metric probe",
    isPublic: false,
  },
  { identifier: "query_metrics", itemType: "tool", description: "Query collected metrics", isPublic: false },
  {
    identifier: "list_connections",
    itemType: "tool",
    description: "List monitored connections",
    isPublic: false,
  },
  {
    identifier: "generate_embedding",
    itemType: "tool",
    description: "Compute an embedding for text",
    isPublic: false,
  },
  {
    identifier: "search_knowledgebase",
    itemType: "tool",
    description: "Search the knowledge base",
    isPublic: false,
  },
  {
    identifier: "similarity_search",
    itemType: "tool",
    description: "Vector similarity search",
    isPublic: false,
  },
  { identifier: "read_resource", itemType: "tool", description: "Read an MCP resource", isPublic: false },
  {
    identifier: "get_alert_history",
    itemType: "tool",
    description: "Alert history of a connection",
    isPublic: false,
  },
  {
    identifier: "get_alert_rules",
    itemType: "tool",
    description: "Alert rules and thresholds",
    isPublic: false,
  },
  {
    identifier: "get_metric_baselines",
    itemType: "tool",
    description: "Baselines of collected metrics",
    isPublic: false,
  },
  {
    identifier: "get_blackouts",
    itemType: "tool",
    description: "Blackout windows and schedules",
    isPublic: false,
  },
  {
    identifier: "get_timeline_events",
    itemType: "tool",
    description: "Events of the estate's timeline",
    isPublic: false,
  },
  {
    identifier: "query_datastore",
    itemType: "tool",
    description: "Run a read-only query on the datastore",
    isPublic: false,
  },
  { identifier: "store_memory", itemType: "tool", description: "Store a memory", isPublic: true },
  { identifier: "recall_memories", itemType: "tool", description: "Recall stored memories", isPublic: true },
  { identifier: "delete_memory", itemType: "tool", description: "Delete a stored memory", isPublic: true },
  {
    identifier: "pg://system_info",
    itemType: "resource",
    description: "Host information of a connection",
    isPublic: false,
  },
  {
    identifier: "pg://connection_info",
    itemType: "resource",
    description: "Details of the current connection",
    isPublic: false,
  },
];
