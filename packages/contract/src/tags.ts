/** Function groups of the API; each becomes an OpenAPI tag. */
export const tags = {
  utilities: { name: "Utilities", description: "Health, API description and other utilities" },
  authentication: { name: "Authentication", description: "Login, logout, the current user and capabilities" },
  rbac: { name: "RBAC", description: "Users, groups, privileges and service tokens" },
  connections: { name: "Connections", description: "Monitored PostgreSQL connections" },
  clusters: { name: "Clusters", description: "Clusters, cluster groups and topology" },
  alerts: { name: "Alerts", description: "Alerts, alert rules and overrides" },
  blackouts: { name: "Blackouts", description: "Blackout windows and schedules" },
  notifications: { name: "Notification channels", description: "Notification channels and overrides" },
  probes: { name: "Probes", description: "Probe configuration and overrides" },
  serverInfo: { name: "Server information", description: "Host and server details of a connection" },
  metrics: { name: "Metrics", description: "Collected metrics, baselines and summaries" },
  timeline: { name: "Timeline", description: "Events on the estate's timeline" },
  health: {
    name: "Health checks",
    description: "Health checks of connections, clusters, groups and the estate",
  },
  overview: { name: "Overview", description: "AI-generated estate overview" },
  conversations: { name: "Conversations", description: "Stored chat conversations" },
  llm: { name: "LLM", description: "LLM proxy: providers, chat, embeddings and reranking" },
  memories: { name: "Memories", description: "Pinned memories" },
  mcp: { name: "MCP", description: "MCP tools over REST" },
} as const;
