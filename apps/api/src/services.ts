import type { Datastore, HostPolicy, SecretKey } from "@dbmon/datastore";
import type { LlmProviders } from "@dbmon/llm";
import type { RequestAccess } from "./auth/access.js";
import type { AuthService } from "./auth/service.js";
import type { ChatCompaction } from "./chat/compaction.js";
import type { Config } from "./config.js";
import type { ConnectionStore } from "./connections/store.js";
import type { ConversationStore } from "./conversations/store.js";
import type { LlmProxy } from "./llm/proxy.js";
import type { Logger } from "./logger.js";
import type { ServerAnalysis } from "./server-info/analysis/service.js";
import type { ServerInfoDocuments } from "./server-info/documents.js";

/** Supplies the current time; tests inject a controllable one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** Everything a handler may use, handed to `createApp` and reached through the Hono context. */
export interface Services {
  config: Config;
  datastore: Datastore;
  logger: Logger;
  clock: Clock;
  /** Users, groups, credentials and privileges. */
  auth: AuthService;
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
  /** What was collected about each connection's server (GET /server-info/{id}). */
  serverInfo: ServerInfoDocuments;
  /** AI descriptions of each connection's databases. */
  serverAnalysis: ServerAnalysis;
  /** The LLM proxy: providers, models, health, chat, embeddings and reranking. */
  llmProxy: LlmProxy;
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
  };
}
