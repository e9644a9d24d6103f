import type { Datastore, SecretKey } from "@dbmon/datastore";
import type { LlmProviders } from "@dbmon/llm";
import type { HostPolicy } from "@dbmon/monitoring";
import type { ActivityService } from "./activity/service.js";
import type { AlertService } from "./alerting/alerts.js";
import type { BlackoutService } from "./alerting/blackouts.js";
import type { ChannelOverrideService } from "./alerting/channel-overrides.js";
import type { NotificationChannelService } from "./alerting/channels.js";
import type { AlertOverrideService } from "./alerting/overrides.js";
import type { AlertRuleService } from "./alerting/rules.js";
import type { BlackoutScheduleService } from "./alerting/schedules.js";
import type { RequestAccess } from "./auth/access.js";
import type { RbacAdministration } from "./auth/rbac.js";
import type { AuthService } from "./auth/service.js";
import type { ChatCompaction } from "./chat/compaction.js";
import type { Clock } from "./clock.js";
import type { ClusterService } from "./clusters/service.js";
import type { Config } from "./config.js";
import type { ConnectionStore } from "./connections/store.js";
import type { ConversationStore } from "./conversations/store.js";
import type { HealthService } from "./health/service.js";
import type { IndexAdvisor } from "./index-advisor/service.js";
import type { KnowledgeBase } from "./knowledge-base/service.js";
import type { LlmProxy } from "./llm/proxy.js";
import type { Logger } from "./logger.js";
import type { Tools } from "./mcp/tool.js";
import type { MemoryStore } from "./memories/store.js";
import type { MetricsReader } from "./metrics/service.js";
import type { OverviewService } from "./overview/service.js";
import type { ProbeSettings } from "./probes/service.js";
import type { ServerAnalysis } from "./server-info/analysis/service.js";
import type { ServerInfoDocuments } from "./server-info/documents.js";
import type { DatastoreReader } from "./sql/datastore-reader.js";
import type { SqlService } from "./sql/service.js";
import type { Timeline } from "./timeline/service.js";

/** Everything a handler may use, handed to `createApp` and reached through the Hono context. */
export interface Services {
  config: Config;
  datastore: Datastore;
  logger: Logger;
  clock: Clock;
  /** Users, groups, credentials and privileges. */
  auth: AuthService;
  /** Users, groups, grants and service tokens as the RBAC operations administer them. */
  rbac: RbacAdministration;
  /** Which hosts notifications may be sent to (webhooks, SMTP). */
  outboundHosts: HostPolicy;
  /** Whether AI features can run (an LLM provider is configured), as /capabilities reports. */
  ai: AiFeatures;
  /** Encrypts connection passwords, notification credentials and other secrets at rest. */
  secretKey: SecretKey;
  /** Which hosts monitored connections may point at. */
  hostPolicy: HostPolicy;
  /** The configured LLM providers (none when AI features are off). */
  llm: LlmProviders;
  /** Monitored connections and each credential's selected connection. */
  connections: ConnectionStore;
  /** Cluster groups, clusters, their servers and relationships, and the topology. */
  clusters: ClusterService;
  /** What was collected about each connection's server (GET /server-info/{id}). */
  serverInfo: ServerInfoDocuments;
  /** AI descriptions of each connection's databases. */
  serverAnalysis: ServerAnalysis;
  /** Probe settings: global defaults, what applies to a connection, overrides per scope. */
  probes: ProbeSettings;
  /** Collected metrics: series, baselines, summaries, top queries, latest snapshots. */
  metrics: MetricsReader;
  /** Database load and sessions from active session history. */
  activity: ActivityService;
  /** Events on the estate's timeline (GET /timeline/events). */
  timeline: Timeline;
  /** Health checks' stored results, per connection and aggregated (GET .../health). */
  health: HealthService;
  /** AI overviews of the estate, scopes and selections, and their streams. */
  overview: OverviewService;
  /** Alerts: listing, counts, acknowledgements and saved analyses. */
  alerts: AlertService;
  /** Threshold rules and their defaults. */
  alertRules: AlertRuleService;
  /** Per-scope overrides of the rules' defaults. */
  alertOverrides: AlertOverrideService;
  /** Blackout windows. */
  blackouts: BlackoutService;
  /** Recurring blackouts. */
  blackoutSchedules: BlackoutScheduleService;
  /** Notification channels, their recipients and test sends. */
  notificationChannels: NotificationChannelService;
  /** Per-scope switches of notification channels. */
  channelOverrides: ChannelOverrideService;
  /** The LLM proxy: providers, models, health, chat, embeddings and reranking. */
  llmProxy: LlmProxy;
  /** Memories stored through the MCP tools; pinned ones join every chat's system prompt. */
  memories: MemoryStore;
  /** User SQL: PostgreSQL's parser, the execution core and the session limits. */
  sql: SqlService;
  /** Index recommendations and plans with hypothetical indexes (HypoPG) on monitored databases. */
  indexAdvisor: IndexAdvisor;
  /** Read-only SQL on the datastore as a role that cannot read secrets (query_datastore). */
  datastoreReader: DatastoreReader;
  /** dbmon's documentation, indexed for full-text search (search_knowledgebase). */
  knowledgeBase: KnowledgeBase;
  /** The MCP tool catalogue, served at /mcp/v1 and through the REST bridge. */
  mcpTools: Tools;
  /** Each user's stored chat conversations. */
  conversations: ConversationStore;
  /** Compaction of chat histories (POST /chat/compact). */
  chatCompaction: ChatCompaction;
}

export interface AiFeatures {
  readonly enabled: boolean;
}

export interface AppEnv {
  Variables: {
    services: Services;
    requestId: string;
    /** The caller of this request and what it may do (looked up on first use). */
    access: RequestAccess;
    /** Set by a state-changing request that succeeded without changing anything access depends on. */
    accessUnchanged: boolean;
  };
}
