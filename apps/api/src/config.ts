import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { type LlmConfig, LlmConfigError, loadLlmConfig } from "@dbmon/llm";
import { isValidHostEntry } from "@dbmon/monitoring";
import { z } from "zod";
import { isAddressOrRange } from "./auth/client-address.js";
import type { LogFormat } from "./logger.js";

const boolean = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
  .transform((value) => value === "true" || value === "1" || value === "yes");

const port = z.coerce
  .number({ error: "must be a port number" })
  .int({ error: "must be a port number" })
  .min(0, { error: "must be a port number" })
  .max(65_535, { error: "must be a port number" });

const corsOrigin = z
  .string()
  .refine((value) => value !== "*", {
    error: "must be one origin, not *: credentials are always required",
  })
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === "http:" || url.protocol === "https:") && url.origin === value.replace(/\/$/, "")
        );
      } catch {
        return false;
      }
    },
    { error: "must be an origin such as https://dbmon.example.com" },
  )
  .transform((value) => value.replace(/\/$/, ""));

const trustedProxies = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean),
  )
  .refine((entries) => entries.every(isAddressOrRange), {
    error: "must be a comma-separated list of IP addresses or CIDR ranges",
  });

const count = (max: number) =>
  z.coerce
    .number({ error: "must be a whole number" })
    .int({ error: "must be a whole number" })
    .min(0)
    .max(max);

const postgresUrl = z.string().refine((value) => /^postgres(ql)?:\/\//.test(value), {
  error: "must be a postgres:// or postgresql:// URL",
});

const hostList = z
  .string()
  .refine((value) => value.split(",").every((entry) => !entry.trim() || isValidHostEntry(entry)), {
    error: "must be a comma-separated list of host names, IP addresses and CIDR ranges",
  });

/**
 * Every setting comes from the environment; these are the variables, their defaults, checks and
 * meanings (the README's configuration table is rendered from them).
 */
export const environmentVariables = z.object({
  DBMON_HOST: z.string().min(1).default("127.0.0.1").describe("Address the API listens on"),
  DBMON_PORT: port.default(8080).describe("Port the API listens on (0 picks a free one)"),
  DBMON_DATABASE_URL: postgresUrl
    .optional()
    .describe("PostgreSQL URL of dbmon's own datastore; unset runs an embedded PostgreSQL"),
  DBMON_DATA_DIR: z
    .string()
    .min(1)
    .default("./.dbmon")
    .describe("Directory for dbmon's files, including the embedded datastore"),
  DBMON_EMBEDDED_PORT: port
    .default(54329)
    .describe("Port of the embedded PostgreSQL on 127.0.0.1 (0 picks a free one)"),
  DBMON_LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`"),
  DBMON_LOG_FORMAT: z
    .enum(["auto", "pretty", "json"])
    .default("auto")
    .describe("`auto` (readable lines on a terminal, JSON lines otherwise), `pretty` or `json`"),
  DBMON_CORS_ORIGIN: corsOrigin
    .optional()
    .describe("The one browser origin allowed to call the API (never `*`)"),
  DBMON_HSTS: boolean.default(false).describe("Send `Strict-Transport-Security` (when served over HTTPS)"),
  DBMON_ALLOWED_HOSTS: hostList
    .optional()
    .describe("Private hosts, addresses and CIDR ranges monitored connections may nevertheless use"),
  DBMON_BLOCKED_HOSTS: hostList
    .optional()
    .describe("Hosts, addresses and CIDR ranges monitored connections may never use"),
  DBMON_NOTIFICATION_ALLOWED_HOSTS: hostList
    .optional()
    .describe("Private or loopback hosts webhook and SMTP notifications may nevertheless reach"),
  DBMON_SSL_DIR: z
    .string()
    .refine((value) => isAbsolute(value), { error: "must be an absolute directory path" })
    .optional()
    .describe("The only directory connections' `ssl_*_path` files may be in (absolute)"),
  DBMON_ALERTER: boolean
    .default(true)
    .describe("Run the alerter inside `dbmon serve` (turn off when it runs as `dbmon alerter`)"),
  DBMON_EVALUATION_INTERVAL_SECONDS: count(3_600)
    .min(1)
    .default(60)
    .describe("Seconds between the alerter's evaluations of every rule"),
  DBMON_SHUTDOWN_TIMEOUT_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .max(600)
    .default(30)
    .describe("Grace period for in-flight requests on SIGTERM/SIGINT"),
  DBMON_SECRET: z
    .string()
    .min(16, { error: "must be at least 16 characters" })
    .optional()
    .describe(
      "Passphrase (16+ characters) of the key encrypting secrets at rest; unset: a key file in `DBMON_DATA_DIR`",
    ),
  DBMON_COLLECTOR: boolean
    .default(true)
    .describe("Run the collector inside `dbmon serve` (turn off when it runs as `dbmon collector`)"),
  DBMON_COLLECTOR_LEASE_SECONDS: count(3_600)
    .min(3)
    .default(30)
    .describe(
      "Seconds a collector's lease on a connection lasts unless renewed (a dead one's move after it)",
    ),
  DBMON_COLLECTOR_MAX_RESULT_MB: count(4_096)
    .min(1)
    .default(256)
    .describe(
      "The most one probe query may receive from a monitored server (MiB); a larger answer is dropped",
    ),
  DBMON_COLLECTOR_OUTAGE_BUFFER_MB: count(65_536)
    .min(1)
    .default(64)
    .describe(
      "Collected data kept in memory while the datastore is unavailable (MiB, rows as JSON), written once it is back; the oldest is dropped first past it",
    ),
  DBMON_COLLECTOR_ACTIVITY_QUERY_CHARS: count(100_000)
    .default(1024)
    .describe(
      "Query text kept per active session sample (characters, cut on the monitored server); 0 keeps none",
    ),
  DBMON_COLLECTOR_ACTIVITY_RAW_MINUTES: count(10_080)
    .min(1)
    .default(60)
    .describe(
      "Minutes raw active session samples are kept (dropped by the hour after that); per-minute counts follow the probe's retention",
    ),
  DBMON_MONITOR_SELF: boolean
    .default(true)
    .describe("Monitor the embedded datastore as the connection `local`"),
  DBMON_ADMIN_USERNAME: z
    .string()
    .min(1)
    .default("admin")
    .describe("The superuser created on first start when there are no users"),
  DBMON_ADMIN_PASSWORD: z.string().optional().describe("Its password; unset: generated and printed once"),
  DBMON_TRUSTED_PROXIES: trustedProxies
    .default([])
    .describe("Peers (addresses or CIDR ranges) whose `X-Forwarded-For` is believed"),
  DBMON_SQL_SESSIONS_PER_USER: count(1_000)
    .min(1)
    .default(4)
    .describe(
      "Ad-hoc SQL sessions (query endpoint, MCP SQL tools) one user may have open at once, per process",
    ),
  DBMON_SQL_SESSIONS_PER_SERVER: count(10_000)
    .min(1)
    .default(10)
    .describe("Ad-hoc SQL sessions open at once on one monitored server (or the datastore), per process"),
  DBMON_DATASTORE_READER_PASSWORD: z
    .string()
    .optional()
    .describe(
      "Password of the `dbmon_datastore_reader` login role, for a datastore user without CREATEROLE; unset: dbmon derives it from its secret key and sets it",
    ),
  DBMON_LOGIN_REQUESTS_PER_MINUTE: count(100_000)
    .min(1)
    .default(20)
    .describe("Login requests per minute per client address"),
  DBMON_LOGIN_MAX_FAILED_ATTEMPTS: count(100_000)
    .min(1)
    .default(10)
    .describe("Failed logins per client address within the window before 429"),
  DBMON_LOGIN_FAILURE_WINDOW_MINUTES: count(10_080)
    .min(1)
    .default(15)
    .describe("The window (minutes) in which a client address's failed logins count"),
  DBMON_LOCKOUT_AFTER_FAILED_ATTEMPTS: count(100_000)
    .default(0)
    .describe("Consecutive wrong passwords that disable an account (0: never)"),
  DBMON_LLM_MAX_ITERATIONS: count(10_000)
    .min(1)
    .default(50)
    .describe(
      "Tool-use rounds the model may take for one question; a chat request carrying that many is refused (400)",
    ),
  DBMON_LLM_MODELS_ANONYMOUS_REQUESTS_PER_MINUTE: count(100_000)
    .min(1)
    .default(30)
    .describe("Anonymous `GET /llm/models` requests per minute per client address (429 beyond)"),
  DBMON_LLM_STREAMS_PER_USER: count(1_000)
    .min(1)
    .default(4)
    .describe("Streamed chats (`/llm/chat/stream`) one user may have open at once, per process (429 beyond)"),
  DBMON_LLM_STREAMS_PER_PROCESS: count(100_000)
    .min(1)
    .default(200)
    .describe("Streamed chats all users together may have open at once, per process (429 beyond)"),
  DBMON_OVERVIEW_INTERVAL_SECONDS: count(86_400)
    .min(1)
    .default(60)
    .describe("Seconds between AI overview snapshots of the estate"),
  DBMON_OVERVIEW_KEEPALIVE_SECONDS: count(3_600)
    .min(1)
    .default(30)
    .describe("Seconds between keepalive comments on idle overview streams"),
  DBMON_OVERVIEW_STREAMS_PER_USER: count(1_000)
    .min(1)
    .default(10)
    .describe("Overview streams one user may have open at once, per process (429 beyond)"),
  DBMON_OVERVIEW_STREAMS_PER_PROCESS: count(100_000)
    .min(1)
    .default(2000)
    .describe(
      "Overview streams all users together may have open at once, per process (429 beyond; each holds about 50 KB and a descriptor)",
    ),
  DBMON_LOCK_STORM_SESSIONS: count(100_000)
    .min(1)
    .default(5)
    .describe("Sessions blocked by locks at one sampled moment that make a `lock_storm` timeline event"),
});

export interface Config {
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPort: number;
  logLevel: z.infer<typeof environmentVariables>["DBMON_LOG_LEVEL"];
  /** How log lines are written: readable on a terminal (`auto`), or always `pretty` or `json`. */
  logFormat: LogFormat;
  corsOrigin: string | undefined;
  hsts: boolean;
  shutdownTimeoutMs: number;
  /** Hosts, addresses and CIDR ranges re-admitted for monitored connections. */
  allowedHosts: string | undefined;
  /** Hosts, addresses and CIDR ranges refused for monitored connections. */
  blockedHosts: string | undefined;
  /** Passphrase of the key that encrypts secrets at rest; unset: a generated key file in dataDir. */
  secret: string | undefined;
  /** The only directory connections' `ssl_*_path` files may be in; unset: no such file may be used. */
  sslDirectory: string | undefined;
  /** Run the collector inside `dbmon serve`. */
  runCollector: boolean;
  /** Seconds a collector's lease on a connection lasts unless renewed. */
  collectorLeaseSeconds: number;
  /** The most one probe query may receive from a monitored server, in bytes. */
  collectorMaxResultBytes: number;
  /** Collected runs kept in memory while the datastore is unavailable, in bytes. */
  collectorOutageBufferBytes: number;
  /** Active session history: query text per sample (characters, 0 none) and raw sample retention. */
  collectorActivity: { queryChars: number; rawRetentionMinutes: number };
  /** Register the embedded datastore as the monitored connection `local`. */
  monitorSelf: boolean;
  /** The LLM provider for AI features; null when none is configured. */
  llm: LlmConfig | null;
  /** Private or loopback hosts that webhook and SMTP notifications may nevertheless be sent to. */
  notificationAllowedHosts: string | undefined;
  /** Whether `dbmon serve` runs the alerter in its process. */
  alerter: boolean;
  /** Seconds between the alerter's evaluation passes. */
  evaluationSeconds: number;
  /** The superuser created on first start when there are no users. */
  adminUsername: string;
  /** Its password; generated and printed once when absent. */
  adminPassword: string | undefined;
  /** Peers whose X-Forwarded-For header is believed (addresses or CIDR ranges). */
  trustedProxies: string[];
  /** Ad-hoc SQL sessions open at once, per user and per server (this process's). */
  sqlSessions: { perUser: number; perServer: number };
  /** The datastore reader role's password when set by the operator; unset: derived from the secret key. */
  datastoreReaderPassword: string | undefined;
  loginThrottle: {
    /** Login requests per minute per client address. */
    requestsPerMinute: number;
    /** Failed logins per client address within the window before 429. */
    maxFailedAttempts: number;
    failureWindowMs: number;
  };
  /** Consecutive wrong passwords that disable an account; 0 never locks out. */
  lockoutAfterFailedAttempts: number;
  /** Tool-use rounds an LLM conversation may take (reported by /capabilities). */
  llmMaxIterations: number;
  /** Anonymous `GET /llm/models` requests per minute per client address. */
  anonymousModelRequestsPerMinute: number;
  /** Streams one user may have open at once in this process, by kind. */
  streamsPerUser: { overview: number; llmChat: number };
  /** Streams all users together may have open at once in this process, by kind. */
  streamsPerProcess: { overview: number; llmChat: number };
  /** Sessions blocked at one sampled moment that make a lock storm on the timeline. */
  lockStormSessions: number;
  overview: {
    /** How often the estate snapshot is built (and the summary regenerated on a significant change). */
    intervalMs: number;
    /** How often an idle overview stream sends a `:keepalive` comment. */
    keepaliveMs: number;
  };
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads and validates the configuration; the first wrong variable is named in the error. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const values = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const parsed = environmentVariables.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue?.path[0] ?? "environment");
    throw new ConfigError(`Invalid configuration: ${variable} ${issue?.message ?? "is invalid"}`);
  }
  const e = parsed.data;
  return {
    host: e.DBMON_HOST,
    port: e.DBMON_PORT,
    databaseUrl: e.DBMON_DATABASE_URL,
    dataDir: e.DBMON_DATA_DIR,
    embeddedPort: e.DBMON_EMBEDDED_PORT,
    logLevel: e.DBMON_LOG_LEVEL,
    logFormat: e.DBMON_LOG_FORMAT,
    corsOrigin: e.DBMON_CORS_ORIGIN,
    hsts: e.DBMON_HSTS,
    shutdownTimeoutMs: e.DBMON_SHUTDOWN_TIMEOUT_SECONDS * 1000,
    allowedHosts: e.DBMON_ALLOWED_HOSTS,
    blockedHosts: e.DBMON_BLOCKED_HOSTS,
    secret: e.DBMON_SECRET,
    sslDirectory: e.DBMON_SSL_DIR,
    runCollector: e.DBMON_COLLECTOR,
    collectorLeaseSeconds: e.DBMON_COLLECTOR_LEASE_SECONDS,
    collectorMaxResultBytes: e.DBMON_COLLECTOR_MAX_RESULT_MB * 1024 * 1024,
    collectorOutageBufferBytes: e.DBMON_COLLECTOR_OUTAGE_BUFFER_MB * 1024 * 1024,
    collectorActivity: {
      queryChars: e.DBMON_COLLECTOR_ACTIVITY_QUERY_CHARS,
      rawRetentionMinutes: e.DBMON_COLLECTOR_ACTIVITY_RAW_MINUTES,
    },
    monitorSelf: e.DBMON_MONITOR_SELF,
    llm: loadLlm(env),
    notificationAllowedHosts: e.DBMON_NOTIFICATION_ALLOWED_HOSTS,
    alerter: e.DBMON_ALERTER,
    evaluationSeconds: e.DBMON_EVALUATION_INTERVAL_SECONDS,
    adminUsername: e.DBMON_ADMIN_USERNAME,
    adminPassword: e.DBMON_ADMIN_PASSWORD,
    trustedProxies: e.DBMON_TRUSTED_PROXIES,
    sqlSessions: { perUser: e.DBMON_SQL_SESSIONS_PER_USER, perServer: e.DBMON_SQL_SESSIONS_PER_SERVER },
    datastoreReaderPassword: e.DBMON_DATASTORE_READER_PASSWORD,
    loginThrottle: {
      requestsPerMinute: e.DBMON_LOGIN_REQUESTS_PER_MINUTE,
      maxFailedAttempts: e.DBMON_LOGIN_MAX_FAILED_ATTEMPTS,
      failureWindowMs: e.DBMON_LOGIN_FAILURE_WINDOW_MINUTES * 60_000,
    },
    lockoutAfterFailedAttempts: e.DBMON_LOCKOUT_AFTER_FAILED_ATTEMPTS,
    llmMaxIterations: e.DBMON_LLM_MAX_ITERATIONS,
    anonymousModelRequestsPerMinute: e.DBMON_LLM_MODELS_ANONYMOUS_REQUESTS_PER_MINUTE,
    streamsPerUser: {
      overview: e.DBMON_OVERVIEW_STREAMS_PER_USER,
      llmChat: e.DBMON_LLM_STREAMS_PER_USER,
    },
    streamsPerProcess: {
      overview: e.DBMON_OVERVIEW_STREAMS_PER_PROCESS,
      llmChat: e.DBMON_LLM_STREAMS_PER_PROCESS,
    },
    lockStormSessions: e.DBMON_LOCK_STORM_SESSIONS,
    overview: {
      intervalMs: e.DBMON_OVERVIEW_INTERVAL_SECONDS * 1000,
      keepaliveMs: e.DBMON_OVERVIEW_KEEPALIVE_SECONDS * 1000,
    },
  };
}

function loadLlm(env: NodeJS.ProcessEnv): LlmConfig | null {
  try {
    return loadLlmConfig(env);
  } catch (error) {
    if (error instanceof LlmConfigError) {
      throw new ConfigError(error.message);
    }
    throw error;
  }
}

/** Loads `.env` from the working directory into the environment, without overriding what is set. */
export function loadDotEnv(file = ".env"): void {
  if (existsSync(file)) {
    process.loadEnvFile(file);
  }
}
