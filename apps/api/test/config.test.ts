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
      corsOrigin: undefined,
      hsts: false,
      shutdownTimeoutMs: 30_000,
      allowedHosts: undefined,
      blockedHosts: undefined,
    });
  });

  it("reads every variable", () => {
    const config = loadConfig({
      DBMON_HOST: "0.0.0.0",
      DBMON_PORT: "9000",
      DBMON_DATABASE_URL: "postgres://u@db:5432/dbmon",
      DBMON_DATA_DIR: "/var/lib/dbmon",
      DBMON_LOG_LEVEL: "debug",
      DBMON_CORS_ORIGIN: "https://ui.example.com/",
      DBMON_HSTS: "true",
    });
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 9000,
      databaseUrl: "postgres://u@db:5432/dbmon",
      dataDir: "/var/lib/dbmon",
      logLevel: "debug",
      corsOrigin: "https://ui.example.com",
      hsts: true,
    });
  });

  it.each([
    [{ DBMON_PORT: "eighty" }, "DBMON_PORT"],
    [{ DBMON_PORT: "70000" }, "DBMON_PORT"],
    [{ DBMON_DATABASE_URL: "mysql://x" }, "DBMON_DATABASE_URL"],
    [{ DBMON_LOG_LEVEL: "loud" }, "DBMON_LOG_LEVEL"],
    [{ DBMON_CORS_ORIGIN: "*" }, "DBMON_CORS_ORIGIN"],
    [{ DBMON_CORS_ORIGIN: "ui.example.com" }, "DBMON_CORS_ORIGIN"],
    [{ DBMON_HSTS: "maybe" }, "DBMON_HSTS"],
    [{ DBMON_BLOCKED_HOSTS: "10.0.0.0/99" }, "DBMON_BLOCKED_HOSTS"],
    [{ DBMON_ALLOWED_HOSTS: "db..example" }, "DBMON_ALLOWED_HOSTS"],
  ])("names the wrong variable in one line (%o)", (env, variable) => {
    expect(() => loadConfig(env)).toThrow(new RegExp(`^Invalid configuration: ${variable} `));
    try {
      loadConfig(env);
    } catch (error) {
      expect((error as Error).message).not.toContain("\n");
    }
  });
});
