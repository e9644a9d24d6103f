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

/** What each MCP item is, by identifier: tools that need a grant, tools anyone may use, resources. */
const grantedTools = {
  query_database: "Run a read-only SQL query on a monitored connection",
  get_schema_info: "Describe the schema of a monitored database",
  execute_explain: "EXPLAIN a query on a monitored connection",
  count_rows: "Count the rows of a table",
  list_probes: "List the metric probes",
  describe_probe: "Describe one metric probe",
  query_metrics: "Query collected metrics",
  list_connections: "List monitored connections",
  generate_embedding: "Compute an embedding for text",
  search_knowledgebase: "Search the knowledge base",
  similarity_search: "Vector similarity search",
  read_resource: "Read an MCP resource",
  get_alert_history: "Alert history of a connection",
  get_alert_rules: "Alert rules and thresholds",
  get_metric_baselines: "Baselines of collected metrics",
  get_database_load: "Database load (active sessions) of a connection",
  get_top_queries_by_load: "Top queries by database load",
  get_lock_tree: "Who blocked whom at a moment",
  get_blackouts: "Blackout windows and schedules",
  get_timeline_events: "Events of the estate's timeline",
  query_datastore: "Run a read-only query on the datastore",
};
const publicTools = {
  store_memory: "Store a memory",
  recall_memories: "Recall stored memories",
  delete_memory: "Delete a stored memory",
};
const grantedResources = {
  "pg://system_info": "Host information of a connection",
  "pg://connection_info": "Details of the current connection",
};

function items(
  descriptions: Record<string, string>,
  itemType: McpItem["itemType"],
  isPublic: boolean,
): McpItem[] {
  return Object.entries(descriptions).map(([identifier, description]) => ({
    identifier,
    itemType,
    description,
    isPublic,
  }));
}

/** MCP items dbmon serves, registered in the datastore at every start-up. */
export const mcpItems: readonly McpItem[] = [
  ...items(grantedTools, "tool", false),
  ...items(publicTools, "tool", true),
  ...items(grantedResources, "resource", false),
];
