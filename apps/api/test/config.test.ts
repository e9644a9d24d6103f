import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.js";

describe("configuration", () => {
  it("has the documented defaults", () => {
    expect(loadConfig({})).toEqual({
      host: "127.0.0.1",
      port: 8080,
      databaseUrl: undefined,
      dataDir: "./.dbmon",
      embeddedPort: 54329,
      logLevel: "info",
      logFormat: "auto",
      corsOrigin: undefined,
      hsts: false,
      shutdownTimeoutMs: 30_000,
      allowedHosts: undefined,
      blockedHosts: undefined,
      secret: undefined,
      runCollector: true,
      collectorLeaseSeconds: 30,
      collectorMaxResultBytes: 256 * 1024 * 1024,
      collectorOutageBufferBytes: 64 * 1024 * 1024,
      collectorActivity: { queryChars: 1024, rawRetentionMinutes: 60 },
      monitorSelf: true,
      llm: null,
      notificationAllowedHosts: undefined,
      alerter: true,
      evaluationSeconds: 60,
      adminUsername: "admin",
      adminPassword: undefined,
      trustedProxies: [],
      sqlSessions: { perUser: 4, perServer: 10 },
      datastoreReaderPassword: undefined,
      loginThrottle: { requestsPerMinute: 20, maxFailedAttempts: 10, failureWindowMs: 900_000 },
      lockoutAfterFailedAttempts: 0,
      llmMaxIterations: 50,
      lockStormSessions: 5,
      anonymousModelRequestsPerMinute: 30,
      streamsPerUser: { overview: 10, llmChat: 4 },
      streamsPerProcess: { overview: 2000, llmChat: 200 },
      overview: { intervalMs: 60_000, keepaliveMs: 30_000 },
    });
  });

  it("reads the authentication variables", () => {
    const config = loadConfig({
      DBMON_ADMIN_USERNAME: "root",
      DBMON_ADMIN_PASSWORD: "a-long-admin-password",
      DBMON_TRUSTED_PROXIES: "10.0.0.0/8, 192.168.1.1,fd00::/8",
      DBMON_LOGIN_REQUESTS_PER_MINUTE: "5",
      DBMON_LOGIN_MAX_FAILED_ATTEMPTS: "3",
      DBMON_LOGIN_FAILURE_WINDOW_MINUTES: "1",
      DBMON_LOCKOUT_AFTER_FAILED_ATTEMPTS: "4",
    });
    expect(config).toMatchObject({
      adminUsername: "root",
      adminPassword: "a-long-admin-password",
      trustedProxies: ["10.0.0.0/8", "192.168.1.1", "fd00::/8"],
      loginThrottle: { requestsPerMinute: 5, maxFailedAttempts: 3, failureWindowMs: 60_000 },
      lockoutAfterFailedAttempts: 4,
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      DBMON_HOST: "0.0.0.0",
      DBMON_PORT: "9000",
      DBMON_DATABASE_URL: "postgres://u@db:5432/dbmon",
      DBMON_DATA_DIR: "/var/lib/dbmon",
      DBMON_LOG_LEVEL: "debug",
      DBMON_LOG_FORMAT: "json",
      DBMON_CORS_ORIGIN: "https://ui.example.com/",
      DBMON_HSTS: "true",
      DBMON_COLLECTOR_LEASE_SECONDS: "6",
      DBMON_COLLECTOR_MAX_RESULT_MB: "64",
      DBMON_COLLECTOR_OUTAGE_BUFFER_MB: "16",
      DBMON_COLLECTOR_ACTIVITY_QUERY_CHARS: "0",
      DBMON_COLLECTOR_ACTIVITY_RAW_MINUTES: "180",
      DBMON_EVALUATION_INTERVAL_SECONDS: "5",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 9000,
      databaseUrl: "postgres://u@db:5432/dbmon",
      dataDir: "/var/lib/dbmon",
      logLevel: "debug",
      logFormat: "json",
      corsOrigin: "https://ui.example.com",
      hsts: true,
      collectorLeaseSeconds: 6,
      collectorMaxResultBytes: 64 * 1024 * 1024,
      collectorOutageBufferBytes: 16 * 1024 * 1024,
      collectorActivity: { queryChars: 0, rawRetentionMinutes: 180 },
      evaluationSeconds: 5,
    });
  });

  it.each([
    [{ DBMON_PORT: "eighty" }, "DBMON_PORT"],
    [{ DBMON_COLLECTOR_MAX_RESULT_MB: "0" }, "DBMON_COLLECTOR_MAX_RESULT_MB"],
    [{ DBMON_COLLECTOR_OUTAGE_BUFFER_MB: "0" }, "DBMON_COLLECTOR_OUTAGE_BUFFER_MB"],
    [{ DBMON_COLLECTOR_ACTIVITY_RAW_MINUTES: "0" }, "DBMON_COLLECTOR_ACTIVITY_RAW_MINUTES"],
    [{ DBMON_COLLECTOR_ACTIVITY_QUERY_CHARS: "-1" }, "DBMON_COLLECTOR_ACTIVITY_QUERY_CHARS"],
    [{ DBMON_PORT: "70000" }, "DBMON_PORT"],
    [{ DBMON_DATABASE_URL: "mysql://x" }, "DBMON_DATABASE_URL"],
    [{ DBMON_LOG_LEVEL: "loud" }, "DBMON_LOG_LEVEL"],
    [{ DBMON_LOG_FORMAT: "xml" }, "DBMON_LOG_FORMAT"],
    [{ DBMON_CORS_ORIGIN: "*" }, "DBMON_CORS_ORIGIN"],
    [{ DBMON_CORS_ORIGIN: "ui.example.com" }, "DBMON_CORS_ORIGIN"],
    [{ DBMON_HSTS: "maybe" }, "DBMON_HSTS"],
    [{ DBMON_BLOCKED_HOSTS: "10.0.0.0/99" }, "DBMON_BLOCKED_HOSTS"],
    [{ DBMON_ALLOWED_HOSTS: "db..example" }, "DBMON_ALLOWED_HOSTS"],
    [{ DBMON_TRUSTED_PROXIES: "10.0.0.0/33" }, "DBMON_TRUSTED_PROXIES"],
    [{ DBMON_SECRET: "short" }, "DBMON_SECRET"],
    [{ DBMON_COLLECTOR: "sometimes" }, "DBMON_COLLECTOR"],
    [{ DBMON_TRUSTED_PROXIES: "proxy.example.com" }, "DBMON_TRUSTED_PROXIES"],
    [{ DBMON_LOCKOUT_AFTER_FAILED_ATTEMPTS: "-1" }, "DBMON_LOCKOUT_AFTER_FAILED_ATTEMPTS"],
    [{ DBMON_COLLECTOR_LEASE_SECONDS: "2" }, "DBMON_COLLECTOR_LEASE_SECONDS"],
    [{ DBMON_EVALUATION_INTERVAL_SECONDS: "0" }, "DBMON_EVALUATION_INTERVAL_SECONDS"],
  ])("names the wrong variable in one line (%o)", (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain("\n");
    }
  });
});
