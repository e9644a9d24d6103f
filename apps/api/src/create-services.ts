import { type Datastore, loadSecretKey, type SecretKey } from "@dbmon/datastore";
import { LlmProviders } from "@dbmon/llm";
import { createHostPolicy, createOutboundHostPolicy } from "@dbmon/monitoring";
import { ActivityService } from "./activity/service.js";
import { AlertService } from "./alerting/alerts.js";
import { BlackoutService } from "./alerting/blackouts.js";
import { ChannelOverrideService } from "./alerting/channel-overrides.js";
import { NotificationChannelService } from "./alerting/channels.js";
import { AlertOverrideService } from "./alerting/overrides.js";
import { AlertRuleService } from "./alerting/rules.js";
import { BlackoutScheduleService } from "./alerting/schedules.js";
import { AccessCache } from "./auth/access-cache.js";
import type { ConnectionCatalog } from "./auth/privileges.js";
import { RbacAdministration } from "./auth/rbac.js";
import { AuthService } from "./auth/service.js";
import { ChatCompaction } from "./chat/compaction.js";
import type { Clock } from "./clock.js";
import { ClusterService } from "./clusters/service.js";
import type { Config } from "./config.js";
import { datastoreConnectionCatalog } from "./connections/catalog.js";
import { ConnectionStore } from "./connections/store.js";
import { ConversationStore } from "./conversations/store.js";
import { HealthService } from "./health/service.js";
import { IndexAdvisor } from "./index-advisor/service.js";
import { KnowledgeBase } from "./knowledge-base/service.js";
import { LlmProxy } from "./llm/proxy.js";
import type { Logger } from "./logger.js";
import { ToolCatalogue } from "./mcp/catalogue.js";
import { MemoryStore } from "./memories/store.js";
import { MetricsReader } from "./metrics/service.js";
import { OverviewService } from "./overview/service.js";
import { ProbeSettings } from "./probes/service.js";
import { ServerAnalysis } from "./server-info/analysis/service.js";
import { ServerInfoDocuments } from "./server-info/documents.js";
import type { Services } from "./services.js";
import { DatastoreReader } from "./sql/datastore-reader.js";
import { SqlParser } from "./sql/parser.js";
import { SqlService } from "./sql/service.js";
import { SqlSessionLimiter } from "./sql/sessions.js";
import { Timeline } from "./timeline/service.js";

export interface ServiceBase {
  config: Config;
  datastore: Datastore;
  logger: Logger;
  clock: Clock;
  /** The key for secrets at rest; loaded from the configuration when absent. */
  secretKey?: SecretKey;
  /** What the authorization layer knows of connections: the datastore's catalog, or this extension of it. */
  extendCatalog?: (stored: ConnectionCatalog) => ConnectionCatalog;
}

/** Everything the API's handlers use, built from the configuration and an open datastore. */
export async function createServices(base: ServiceBase): Promise<Services> {
  const { config, datastore, logger, clock } = base;
  const secretKey =
    base.secretKey ?? (await loadSecretKey({ secret: config.secret, dataDir: config.dataDir }));
  const cache = new AccessCache();
  await cache.listen(datastore);
  const stored = datastoreConnectionCatalog(datastore, cache);
  const auth = new AuthService({
    datastore,
    clock,
    config,
    cache,
    connections: base.extendCatalog?.(stored) ?? stored,
  });
  await auth.registerMcpItems();
  const hostPolicy = createHostPolicy({ allowed: config.allowedHosts, blocked: config.blockedHosts });
  const outboundHosts = createOutboundHostPolicy({ allowed: config.notificationAllowedHosts });
  const alertRules = new AlertRuleService(datastore);
  const notificationChannels = new NotificationChannelService({
    datastore,
    secretKey,
    outboundHosts,
    clock,
    logger,
  });
  const sql = new SqlService(new SqlParser(), new SqlSessionLimiter(config.sqlSessions));
  const llm = new LlmProviders(config.llm);
  const memories = new MemoryStore({ datastore, clock, logger, embedder: llm.embedder });
  await memories.listen();
  const timeline = new Timeline({ datastore, logger, lockStormSessions: config.lockStormSessions });
  const overview = new OverviewService({
    datastore,
    llm: llm.defaultChat,
    clock,
    logger,
    timeline,
    intervalMs: config.overview.intervalMs,
    keepaliveMs: config.overview.keepaliveMs,
    streamsPerUser: config.streamsPerUser.overview,
    streamsPerProcess: config.streamsPerProcess.overview,
  });
  await overview.listen();
  const clusters = new ClusterService(datastore);
  const connections = new ConnectionStore({
    datastore,
    key: secretKey,
    hostPolicy,
    sslDirectory: config.sslDirectory,
    logger,
  });
  return {
    config,
    datastore,
    logger,
    clock,
    auth,
    rbac: new RbacAdministration(auth, clock),
    ai: { enabled: llm.defaultChat !== null },
    secretKey,
    hostPolicy,
    outboundHosts,
    llm,
    connections,
    indexAdvisor: new IndexAdvisor({ connections, sql }),
    clusters,
    serverInfo: new ServerInfoDocuments(datastore),
    probes: new ProbeSettings(datastore),
    metrics: new MetricsReader({ datastore, clock }),
    activity: new ActivityService({ datastore, clock, clusters }),
    timeline,
    health: new HealthService(datastore),
    overview,
    alerts: new AlertService(datastore),
    alertRules,
    alertOverrides: new AlertOverrideService(datastore, alertRules),
    blackouts: new BlackoutService(datastore),
    blackoutSchedules: new BlackoutScheduleService(datastore),
    notificationChannels,
    channelOverrides: new ChannelOverrideService(datastore, notificationChannels),
    serverAnalysis: new ServerAnalysis({ datastore, llm: llm.defaultChat, clock, logger }),
    llmProxy: new LlmProxy({
      llm,
      logger,
      clock,
      memories,
      maxToolRounds: config.llmMaxIterations,
      streamsPerUser: config.streamsPerUser.llmChat,
      streamsPerProcess: config.streamsPerProcess.llmChat,
      throttle: auth.throttle,
      anonymousModelRequestsPerMinute: config.anonymousModelRequestsPerMinute,
    }),
    memories,
    sql,
    datastoreReader: new DatastoreReader({
      datastore,
      sql,
      secretKey,
      password: config.datastoreReaderPassword,
    }),
    knowledgeBase: new KnowledgeBase({ datastore, logger }),
    mcpTools: new ToolCatalogue({ logger }),
    conversations: new ConversationStore(datastore, clock),
    chatCompaction: new ChatCompaction({ llm: llm.defaultChat, logger }),
  };
}
